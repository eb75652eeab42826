import Foundation
import HearthCore
import Testing

/// `ActionLinks.checkContinueURL` against URLs a browser would send somewhere else than the check believes.
@Suite struct ContinueURLTests {
    static let domains = ["good.com", "localhost"]

    static func allowed(_ url: String) -> Bool {
        ActionLinks.checkContinueURL(url, authorizedDomains: domains, appSchemes: ["com.example.app"]) == nil
    }

    @Test(arguments: [
        "https://good.com/done", "https://app.good.com/x?y=1#z", "HTTPS://GOOD.COM/", "http://localhost:5173/finish",
        "com.example.app://finish", "https://good.com:8443/",
    ])
    func authorizedURLsPass(_ url: String) {
        #expect(Self.allowed(url))
    }

    @Test(arguments: [
        // Browsers read a backslash as a slash: the host is evil.com.
        #"https://evil.com\.good.com/"#, #"https://evil.com\@good.com/"#, #"https:\\evil.com\.good.com"#,
        // User info, scheme-relative, no slashes, empty host.
        "http://localhost@evil.com/", "https://good.com@evil.com/", "//evil.com/", "https:evil.com", "https:///evil.com",
        // Percent-encoded or non-ASCII separators inside the host.
        "https://evil.com%2F.good.com/", "https://evil.com%5C.good.com/", "https://evil.com%2f%2f.good.com",
        "https://evil.com\u{FF0F}.good.com/", "https://evil.com\u{FF3C}.good.com/", "https://evil.com\u{2215}.good.com/",
        "https://evil.com%E2%88%95.good.com/",
        // Look-alikes and suffix tricks.
        "https://evilgood.com/", "https://good.com.evil.com/", "https://g\u{043E}od.com/", "https://good.com%00.evil.com/",
        // Schemes that run code or read files.
        "javascript:alert(1)//good.com", "JAVASCRIPT://good.com/%0aalert(1)", "data:text/html,hi", "file:///etc/passwd",
        // Whitespace and controls (a browser strips tabs and newlines).
        "https://evil.com\t.good.com/", "https://evil.com\n.good.com/", " https://evil.com",
    ])
    func redirectsElsewhereAreRefused(_ url: String) {
        #expect(!Self.allowed(url), "\(url) must be refused")
    }

    @Test func aCheckedURLKeepsItsHostInTheContinuation() throws {
        let next = ActionLinks.continuation("https://app.good.com/finish?x=1", type: .emailSignIn, code: "abc", apiKey: "k")
        let components = try #require(URLComponents(string: next))
        #expect(components.host == "app.good.com")
        #expect(components.queryItems?.contains(URLQueryItem(name: "oobCode", value: "abc")) == true)
    }
}
