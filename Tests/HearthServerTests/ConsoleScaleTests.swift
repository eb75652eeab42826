import Foundation
import HearthCore
import HearthServer
import HearthTesting
import HearthWire
import Testing

/// Issue 41 (a million users) in the console: counts made at most once a minute, the Users page walked by key.
extension ConsoleTests {
    /// The uids a Users page lists, in order.
    static func listedUids(_ page: String) -> [String] {
        page.components(separatedBy: #"readonly value=""#).dropFirst().map { String($0.prefix { $0 != "\"" }) }
    }

    /// The `href` of the link with `rel`, its `&amp;` decoded.
    static func link(_ rel: String, in page: String) -> String? {
        guard let end = page.range(of: #"" rel="\#(rel)""#) else { return nil }
        let before = page[..<end.lowerBound]
        guard let start = before.range(of: #"href=""#, options: .backwards) else { return nil }
        return String(before[start.upperBound...]).replacingOccurrences(of: "&amp;", with: "&")
    }

    func addUsers(_ h: HearthHarness, _ uids: some Sequence<String>) async throws {
        for uid in uids {
            let created = try await h.send(.post, WirePaths.adminAccounts(projectId: "demo-hearth"), body: #"{"localId":"\#(uid)"}"#,
                                           headers: [.authorization: "Bearer owner"])
            #expect(created.status == 200, "\(created.text)")
        }
    }

    /// Issue 41, item 5: the overview and the Users page count the scope's users at most once a minute (not on every
    /// view) and say how old a count is; a user added shows in the count after the minute, or at once when the page
    /// lists more users than the count says.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func userCountsAreMadeAtMostOnceAMinute(_ choice: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: choice) { h in
            try await addUsers(h, ["c-1", "c-2", "c-3"])
            let session = try await signIn(h)  // views the Users page: counts 3
            let counted = try await h.send(.get, "/console", headers: session.headers).text
            #expect(counted.contains(#"<p class="figure">3</p>"#) && counted.contains("counted 0 s ago"), "\(counted)")
            try await addUsers(h, ["c-4"])
            h.clock.advance(by: 30)
            let cached = try await h.send(.get, "/console", headers: session.headers).text
            #expect(cached.contains(#"<p class="figure">3</p>"#) && cached.contains("counted 30 s ago"), "the count of 30 s ago: \(cached)")
            h.clock.advance(by: 30)
            let recounted = try await h.send(.get, "/console", headers: session.headers).text
            #expect(recounted.contains(#"<p class="figure">4</p>"#) && !recounted.contains("counted "), "counted again after a minute: \(recounted)")
            try await addUsers(h, ["c-5"])
            h.clock.advance(by: 5)
            let users = try await h.send(.get, "/console/users", headers: session.headers).text
            #expect(users.contains("Users 1–5 of 5") && !users.contains("counted "), "the page lists 5: counted again: \(users)")
            let search = try await h.send(.get, "/console/users?q=c-2", headers: session.headers).text
            #expect(search.contains("Users 1–1 of 1"), "a search counts its own matches: \(search)")
        }
    }

    /// Issue 41, item 2: the Users page walks newest first by key — next and previous links carry a user's place, users
    /// created in the same instant are each listed once, and going back shows the page before again.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func usersPagesWalkByKey(_ choice: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: choice) { h in
            // The test clock stands still: every user has the same creation time, the uid breaks the ties.
            try await addUsers(h, (0..<60).map { String(format: "k-%02d", $0) })
            let session = try await signIn(h)
            let first = try await h.send(.get, "/console/users", headers: session.headers).text
            #expect(first.contains("Users 1–25 of 60"), "\(first)")
            let firstUids = Self.listedUids(first)
            #expect(firstUids == (35..<60).reversed().map { String(format: "k-%02d", $0) })
            let secondHref = try #require(Self.link("next", in: first))
            #expect(secondHref.contains("&after="), "\(secondHref)")
            let second = try await h.send(.get, secondHref, headers: session.headers).text
            #expect(second.contains("Users 26–50 of 60"), "\(second)")
            let third = try await h.send(.get, try #require(Self.link("next", in: second)), headers: session.headers).text
            #expect(third.contains("Users 51–60 of 60") && Self.link("next", in: third) == nil, "\(third)")
            let walked = firstUids + Self.listedUids(second) + Self.listedUids(third)
            #expect(walked == (0..<60).reversed().map { String(format: "k-%02d", $0) })
            let backHref = try #require(Self.link("prev", in: third))
            #expect(backHref.contains("&before="), "\(backHref)")
            let back = try await h.send(.get, backHref, headers: session.headers).text
            #expect(Self.listedUids(back) == Self.listedUids(second) && back.contains("Users 26–50 of 60"), "\(back)")
            #expect(Self.link("prev", in: back) == "/console/users?page=0")
            // A place that is not one is refused quietly: the first page.
            let bad = try await h.send(.get, "/console/users?page=1&after=nonsense", headers: session.headers)
            #expect(bad.status == 200)
        }
    }
}
