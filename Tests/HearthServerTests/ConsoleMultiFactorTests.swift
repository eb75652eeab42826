import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// The console's second-factor parts: the Settings card (through the admin API's `updateMask=mfa`), the clock
/// check with its throwaway key, and a user's factors on the user page with their removal.
extension ConsoleTests {
    static func between(_ text: String, _ start: String, _ end: String) -> String? {
        guard let open = text.range(of: start) else { return nil }
        return String(text[open.upperBound...].prefix { String($0) != end })
    }

    @Test func theTOTPCardSavesThroughTheAdminAPI() async throws {
        try await HearthHarness.run { h in
            let session = try await signIn(h)
            let page = try await h.send(.get, "/console/settings", headers: session.headers)
            #expect(page.text.contains("Two-step verification (TOTP)"))
            #expect(!page.text.contains(#"name="enabled" value="true" checked"#), "off by default")
            #expect(page.text.contains(#"value="5" aria-describedby="mfa-window""#), "Google's default of 5 intervals")
            #expect(page.text.contains("a window of ±150 seconds"))

            let saved = try await post(h, "/console/settings/mfa", session, [("csrf", session.csrf), ("enabled", "true"), ("adjacentIntervals", "2")])
            #expect(saved.status == 303)
            #expect(saved.headers[.location] == "/console/settings?ok=mfa#mfa")
            var project = try #require(try await h.store.projectConfig(projectId: h.projectId))
            #expect(project.totpEnabled)
            #expect(project.totpAdjacentIntervals == 2)
            let shown = try await h.send(.get, "/console/settings?ok=mfa", headers: session.headers)
            #expect(shown.text.contains("Two-step verification saved."))
            #expect(shown.text.contains(#"name="enabled" value="true" checked"#))
            #expect(shown.text.contains("a window of ±60 seconds"))
            // The admin API answers the same setting.
            let config = try await h.send(.get, "/identitytoolkit.googleapis.com/v2/projects/\(h.projectId)/config", headers: [.authorization: "Bearer owner"])
            #expect(config.text.contains(#""adjacentIntervals":2"#), "\(config.text)")

            for bad in ["11", "-1", "two", ""] {
                let refused = try await post(h, "/console/settings/mfa", session, [("csrf", session.csrf), ("enabled", "true"), ("adjacentIntervals", bad)])
                #expect(refused.status == 400, "\(bad)")
                #expect(refused.text.contains("adjacent intervals must be a whole number from 0 to 10"))
            }
            let off = try await post(h, "/console/settings/mfa", session, [("csrf", session.csrf), ("adjacentIntervals", "2")])
            #expect(off.status == 303)
            project = try #require(try await h.store.projectConfig(projectId: h.projectId))
            #expect(!project.totpEnabled)
            #expect(project.totpAdjacentIntervals == 2)
            let forged = try await post(h, "/console/settings/mfa", session, [("csrf", "wrong"), ("enabled", "true"), ("adjacentIntervals", "3")])
            #expect(forged.status == 403)
            #expect(try await h.store.projectConfig(projectId: h.projectId)?.totpEnabled == false)
            let audit = try await h.store.auditEntries(before: nil, limit: 20).filter { $0.actor == "console:owner" && $0.action == "config.update" }
            #expect(audit.count == 2)
        }
    }

    @Test func theClockCheckSaysByHowManyStepsTheAppDiffers() async throws {
        try await HearthHarness.run { h in
            let session = try await signIn(h)
            _ = try await post(h, "/console/settings/mfa", session, [("csrf", session.csrf), ("enabled", "true"), ("adjacentIntervals", "1")])
            let page = try await h.send(.get, "/console/settings", headers: session.headers)
            let nonce = try #require(Self.between(page.text, #"name="nonce" value=""#, "\""))
            let key = try #require(Self.between(page.text, "Key: <code>", "<"))
            let uri = try #require(Self.between(page.text, #"<code class="uri">"#, "<"))
            #expect(uri.hasPrefix("otpauth://totp/\(h.projectId):clock-check?secret=\(key)&amp;issuer=\(h.projectId)"), "\(uri)")
            #expect(page.text.contains(#"<svg xmlns="http://www.w3.org/2000/svg""#))
            // Each load makes another key.
            let again = try await h.send(.get, "/console/settings", headers: session.headers)
            #expect(Self.between(again.text, "Key: <code>", "<") != key)

            let secret = try #require(Base32.decode(key))
            let app = try #require(TOTP(secret: secret))
            func check(_ code: String) async throws -> String {
                let reply = try await post(h, "/console/settings/clock-check", session, [("csrf", session.csrf), ("nonce", nonce), ("code", code)])
                #expect(reply.status == 200)
                // The page comes back with the same key, so the admin can try again with the next code.
                #expect(reply.text.contains("Key: <code>\(key)</code>"))
                return try #require(Self.between(reply.text, #"role="status">"#, "<")).replacingOccurrences(of: "&#39;", with: "'")
            }
            let now = h.clock.now
            #expect(try await check(app.code(at: now)).contains("matches the server's current 30-second step"))
            let behind = try await check(app.code(at: now.addingTimeInterval(-60)))
            #expect(behind.contains("matches 2 steps (about 60 seconds) behind the server's clock"), "\(behind)")
            #expect(behind.contains("Sign-ins refuse it: the adjacent intervals are 1."))
            let ahead = try await check(app.code(at: now.addingTimeInterval(30)))
            #expect(ahead.contains("matches 1 step (about 30 seconds) ahead of the server's clock. Sign-ins accept it (adjacent intervals: 1)."), "\(ahead)")
            #expect(try await check(app.code(at: now.addingTimeInterval(-400))).contains("No match within ±10 steps"))
            #expect(try await check("12345").contains("Type the 6 digits"))
            // The key is derived from the session and the nonce: another nonce is another key.
            let other = try await post(h, "/console/settings/clock-check", session,
                                       [("csrf", session.csrf), ("nonce", "AAAAAAAAAAAAAAAAAAAAAA"), ("code", app.code(at: now))])
            #expect(other.text.contains("No match within ±10 steps"))
            let badNonce = try await post(h, "/console/settings/clock-check", session, [("csrf", session.csrf), ("nonce", "x"), ("code", "123456")])
            #expect(badNonce.status == 400)
            // Another console session derives another key from the same nonce.
            let second = try await signIn(h)
            let foreign = try await post(h, "/console/settings/clock-check", second, [("csrf", second.csrf), ("nonce", nonce), ("code", app.code(at: now))])
            #expect(foreign.text.contains("No match within ±10 steps"))
        }
    }

    /// A user with two TOTP factors and recovery codes, written to the store as enrollment leaves them.
    func enrolledUser(_ h: HearthHarness, email: String) async throws -> UserRecord {
        _ = try await h.signUp(email: email)
        var user = try #require(try await h.store.user(email: email))
        user.mfa = UserMultiFactor(
            factors: [MultiFactorEnrollment(enrollmentId: "enr-phone", displayName: "Work phone", enrolledAt: h.clock.now, secret: "JBSWY3DPEHPK3PXP"),
                      MultiFactorEnrollment(enrollmentId: "enr-tablet", displayName: "Tablet", enrolledAt: h.clock.now, secret: "JBSWY3DPEHPK3PXQ")],
            recoveryCodeHashes: RecoveryCodes.generate(count: 7).compactMap(RecoveryCodes.hash), recoveryCodesUsed: 3)
        return try await h.store.updateUser(user)
    }

    @Test func theUserPageListsAndRemovesSecondFactors() async throws {
        try await HearthHarness.run { h in
            let session = try await signIn(h)
            let user = try await enrolledUser(h, email: "grace@example.com")
            _ = try await h.signUp(email: "plain@example.com")
            let list = try await h.send(.get, "/console/users", headers: session.headers)
            #expect(list.text.components(separatedBy: ">2FA</span>").count - 1 == 1)
            let page = try await h.send(.get, "/console/user?uid=\(user.localId)", headers: session.headers)
            #expect(page.text.contains("<code>enr-phone</code>") && page.text.contains("<code>enr-tablet</code>"))
            #expect(page.text.contains("Work phone") && page.text.contains("7 recovery codes left (3 used)"))
            #expect(!page.text.contains("JBSWY3DPEHPK3PXP"), "never the secret")

            h.clock.advance(by: 10)
            let one = try await post(h, "/console/user/mfa/remove", session, [("csrf", session.csrf), ("uid", user.localId), ("factor", "enr-phone")])
            #expect(one.status == 303)
            #expect(one.headers[.location]?.hasSuffix("&ok=mfa-removed#second-factors") == true)
            var stored = try #require(try await h.store.user(localId: user.localId))
            #expect(stored.mfa.factors.map(\.enrollmentId) == ["enr-tablet"])
            #expect(stored.validSince > user.validSince, "sessions revoked")

            let unknown = try await post(h, "/console/user/mfa/remove", session, [("csrf", session.csrf), ("uid", user.localId), ("factor", "enr-nope")])
            #expect(unknown.status == 400)
            #expect(unknown.text.contains("MFA_ENROLLMENT_NOT_FOUND"))
            let forged = try await post(h, "/console/user/mfa/remove", session, [("csrf", "x"), ("uid", user.localId)])
            #expect(forged.status == 403)
            #expect(try await h.store.user(localId: user.localId)?.mfa.factors.count == 1)

            let all = try await post(h, "/console/user/mfa/remove", session, [("csrf", session.csrf), ("uid", user.localId)])
            #expect(all.status == 303)
            #expect(all.headers[.location]?.hasSuffix("&ok=mfa-removed-all#second-factors") == true)
            stored = try #require(try await h.store.user(localId: user.localId))
            #expect(stored.mfa.factors.isEmpty && stored.mfa.recoveryCodeHashes.isEmpty)
            let after = try await h.send(.get, "/console/user?uid=\(user.localId)&ok=mfa-removed-all", headers: session.headers)
            #expect(after.text.contains("Every second factor removed."))
            #expect(after.text.contains("None: this user signs in with one factor."))
            let audit = try await h.store.auditEntries(before: nil, limit: 20).filter { $0.actor == "console:owner" }.map(\.action)
            #expect(audit.filter { $0 == "mfa.remove" }.count == 2, "\(audit)")
        }
    }
}
