import Foundation
import HearthCore
import HearthServer
import HearthTesting
import HearthWire
import Logging
import Synchronization
import Testing

/// Issue 18's findings in the pages and the handler: titles name who refused (18.8), `+` is a space in queries (18.9).
@Suite struct FirstHourPagesTests {
    static func title(_ page: Browser.Page) -> String {
        HearthHarness.capture(#"<h1[^>]*>([^<]+)</h1>"#, in: page.body) ?? ""
    }

    /// 18.8: "microsoft.com refused the sign-in" only when microsoft.com did; Hearth's rules and Hearth's own
    /// failures are titled as such.
    @Test func pagesAreTitledByWhoRefused() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            func done(_ error: FirebaseWebError) async throws -> String {
                Self.title(try await Browser.get(h.baseURL + "/__dev/try/done?" + FormEncoding.encode([("p", "microsoft.com"), ("firebaseError", error.jsonString)])))
            }
            #expect(try await done(FirebaseWebError(code: .invalidCredential, message: "AADSTS50020", providerError: "access_denied"))
                    == "microsoft.com refused the sign-in")
            #expect(try await done(FirebaseWebError(code: .networkRequestFailed, message: "the discovery document could not be fetched"))
                    == "The sign-in could not be completed")
            #expect(try await done(FirebaseWebError(code: .appNotAuthorized, message: "no desktop application"))
                    == "Hearth did not allow this sign-in")
            // credentialAlreadyInUse at signInWithIdp: Hearth's rule, not the provider's refusal.
            #expect(FirebaseWebError(code: .operationNotAllowed, message: "x").refusal == .rules)
            // An unfetchable discovery document (the provider's endpoints moved to a closed port) is Hearth's failure.
            try await h.store.saveIdPConfig(IdPConfig(providerId: "oidc.gone", kind: .oidc, clientId: "c", clientSecret: "s",
                                                      issuer: "http://127.0.0.1:9/gone"))
            let flow = try await h.browserSignIn(providerId: "oidc.gone", email: "x@example.com")
            let error = try #require(flow.webError)
            #expect(error.refusal == .server, "\(error)")
            #expect(error.refusal.title(provider: "oidc.gone") == "The sign-in could not be completed")
        }
    }

    /// 18.9: a query written by Python's urlencode or Java's URLEncoder (`+` for a space) reads as sent.
    @Test func plusIsASpaceInTheHandlersQuery() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            try await h.enableDevProviders()
            let base = h.handlerURL(providerId: "microsoft.com", rawSessionId: "ABCDEFGHIJ")
            let start = try await Browser.get(base + "&customParameters=%7B%22tenant%22%3A+%22organizations%22%7D")
            #expect(start.status == 302, "\(start.body)")
            let location = try #require(start.location)
            #expect(!location.contains("firebaseError"), "\(location)")
            #expect(location.contains("/organizations/oauth2/v2.0/authorize"), "\(location)")
            // And in an API query: the refresh grant's parameters in the query string with + for spaces still parse.
            let grant = try await h.send(.post, WirePaths.secureToken + "?key=test-key&grant_type=refresh_token&refresh_token=not+a+token")
            #expect(grant.errorCode == "INVALID_REFRESH_TOKEN")
        }
    }

    /// 18.11: a request refused for a wrong API key leaves a log line (without the key); the console's user page shows
    /// the linked provider's own uid.
    @Test func aWrongAPIKeyIsLoggedAndTheConsoleShowsTheProvidersUid() async throws {
        let lines = LogLines()
        var logger = Logger(label: "hearth.test") { _ in HearthLogHandler(label: "hearth", format: .text, level: .info, sink: { lines.append($0) }) }
        logger.logLevel = .info
        try await HearthHarness.run(configure: { $0.apiKeys = ["test-key"] }, devIdPs: true, logger: logger) { h in
            try await h.enableDevProviders()
            let refused = try await h.post(WirePaths.accounts("signUp"), SignUpRequest(), query: "key=wrong-key-123")
            #expect(refused.status == 400 && refused.text.contains("API key not valid"))
            #expect(lines.all.contains { $0.contains("request refused: API key not valid") && $0.contains("accounts:signUp") }, "\(lines.all)")
            #expect(!lines.all.contains { $0.contains("wrong-key-123") })
            let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "uid@contoso.com")
            let signedIn = try await h.post(WirePaths.v3("verifyAssertion"), SignInWithIdpRequest(
                requestUri: flow.link, postBody: "providerId=microsoft.com", sessionId: flow.rawSessionId))
            let body = try signedIn.decode(SignInWithIdpResponse.self)
            let console = ConsoleTests()
            let session = try await console.signIn(h)
            let page = try await h.send(.get, "/console/user?uid=\(try #require(body.localId))", headers: session.headers)
            #expect(page.text.contains("uid \(try #require(body.federatedId))"), "\(page.text)")
        }
    }
}

/// Log lines captured by a test's log handler.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
