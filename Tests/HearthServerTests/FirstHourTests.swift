import Foundation
import HearthCore
import HearthServer
import HearthTesting
import HearthWire
import HTTPTypes
import Logging
import Synchronization
import Testing

/// Issue 7: CORS on errors, dev IdPs never replacing real settings, refusals said as refusals, HTML pages, logs.
@Suite struct FirstHourTests {
    // MARK: 1. Every error keeps its status, envelope and CORS headers, for any origin.

    /// One bad request and the error it must get: the bad-input table's case type.
    typealias ErrorCase = BadInputTests.Case

    static let errorCases: [ErrorCase] = BadInputTests.cases.map {
        ErrorCase(name: $0.name, method: $0.method, path: $0.path, body: $0.body, contentType: $0.contentType, status: $0.status, code: $0.code)
    } + [
        ErrorCase(name: "wrong password", path: WirePaths.accounts("signInWithPassword"),
                  body: #"{"email":"cors@example.com","password":"not the password"}"#, status: 400, code: "INVALID_LOGIN_CREDENTIALS"),
        ErrorCase(name: "email exists", path: WirePaths.accounts("signUp"),
                  body: #"{"email":"cors@example.com","password":"correct horse"}"#, status: 400, code: "EMAIL_EXISTS"),
        ErrorCase(name: "invalid ID token", path: WirePaths.accounts("lookup"), body: #"{"idToken":"x.y.z"}"#, status: 400, code: "INVALID_ID_TOKEN"),
        ErrorCase(name: "invalid refresh token", path: WirePaths.secureToken, body: #"{"grant_type":"refresh_token","refresh_token":"nope"}"#,
                  status: 400, code: "INVALID_REFRESH_TOKEN"),
        ErrorCase(name: "v3 wrong password", path: WirePaths.v3("verifyPassword"),
                  body: #"{"email":"cors@example.com","password":"wrong"}"#, status: 400, code: "INVALID_LOGIN_CREDENTIALS"),
        ErrorCase(name: "pending token without ID token", path: WirePaths.accounts("signInWithIdp"),
                  body: #"{"requestUri":"http://localhost","pendingToken":"hpt1.x"}"#, status: 400, code: "INVALID_PENDING_TOKEN"),
    ]

    @Test(arguments: [nil, "https://app.example.com", "http://localhost:5173", "capacitor://localhost"])
    func errorsKeepStatusEnvelopeAndCORS(origin: String?) async throws {
        try await HearthHarness.run { h in
            _ = try await h.signUp(email: "cors@example.com")
            for testCase in Self.errorCases {
                var headers: HTTPFields = [:]
                if let origin { headers[.origin] = origin }
                let path = testCase.path + (testCase.path.contains("googleapis") ? "?key=k" : "")
                let reply = try await h.send(testCase.method, path, body: testCase.body, contentType: testCase.contentType, headers: headers)
                #expect(reply.status == testCase.status, "\(testCase.name): \(reply.text.prefix(200))")
                let envelope = try #require(reply.envelope, "\(testCase.name): body was: \(reply.text.prefix(200))")
                #expect(envelope.errorCode == testCase.code, "\(testCase.name)")
                #expect(envelope.error.code == testCase.status, "\(testCase.name)")
                #expect(reply.headers[.accessControlAllowOrigin] == origin, "\(testCase.name)")
            }
        }
    }

    @Test func invalidAPIKeyKeepsCORS() async throws {
        try await HearthHarness.run(configure: { $0.apiKeys = ["right"] }) { h in
            let reply = try await h.send(.post, WirePaths.accounts("signUp") + "?key=wrong", body: "{}",
                                         headers: [.origin: "https://app.example.com"])
            #expect(reply.status == 400)
            #expect(reply.errorCode == "API key not valid. Please pass a valid API key.")
            #expect(reply.headers[.accessControlAllowOrigin] == "https://app.example.com")
        }
    }

    // MARK: 2. Dev IdPs never replace or persist over a person's provider settings.

    @Test func devIdPsNeverReplaceConfiguredProviders() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            var real = IdPConfig(providerId: "microsoft.com", kind: .microsoft, clientId: "REAL-CLIENT", clientSecret: "real-secret")
            real.enabled = true
            try await h.store.saveIdPConfig(real)
            // A leftover an older `--dev` stored is removed; a person's settings stay as they are.
            try await h.store.saveIdPConfig(IdPConfig(providerId: "yahoo.com", kind: .yahoo, clientId: "dev-yahoo-old", clientSecret: "x",
                                                      endpointBase: h.baseURL + "/__dev/yahoo", displayName: "Yahoo (dev)"))
            let sources = try await h.server.start()
            #expect(try await h.store.idpConfig(providerId: "microsoft.com") == real)
            #expect(try await h.store.idpConfig(providerId: "yahoo.com") == nil)
            #expect(sources.first { $0.providerId == "microsoft.com" }?.kind == .configured)
            #expect(sources.first { $0.providerId == "microsoft.com" }?.clientId == "REAL-CLIENT")
            #expect(sources.first { $0.providerId == "yahoo.com" }?.kind == .devIdP)
            // The dev IdP serves yahoo.com from memory.
            let flow = try await h.browserSignIn(providerId: "yahoo.com", email: "dev@yahoo.com")
            #expect(flow.link != nil)
            #expect(try await h.store.idpConfigs().map(\.providerId) == ["microsoft.com"])
        }
    }

    // MARK: 3. Refusals are refusals, with the provider's reason and code.

    @Test func workOrSchoolOnlyIsARefusalNotACancel() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@outlook.com", customParameters: ["tenant": "organizations"])
            let error = try #require(flow.webError, "\(flow.appURL ?? "")")
            #expect(error.webCode == .invalidCredential)
            #expect(error.webCode != .webContextCancelled)
            #expect(error.providerErrorCode == "AADSTS50020")
            #expect(error.providerError == "access_denied")
            #expect(error.message.contains("work or school accounts only"))
            #expect(error.providerErrorDescription?.contains("AADSTS50020") == true)
            #expect(error.correlationId?.isEmpty == false)
        }
    }

    @Test func wrongTenantSaysTheOrganisationIsNotAllowed() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@fabrikam.com", customParameters: ["tenant": "contoso.com"])
            let error = try #require(flow.webError)
            #expect(error.webCode == .invalidCredential)
            #expect(error.message.lowercased().contains("your organisation is not allowed"))
        }
    }

    @Test func cancelIsStillACancel() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let flow = try await h.browserSignIn(providerId: "yahoo.com", email: "ada@yahoo.com", cancel: true)
            #expect(flow.webError?.webCode == .webContextCancelled)
            #expect(flow.webError?.providerErrorCode == nil)
        }
    }

    @Test func devTryPageSaysWhatHappened() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            // Refused: never "Signed in".
            let refused = try await Self.tryPage(h, provider: "microsoft.com", email: "ada@outlook.com", tenant: "organizations")
            #expect(refused.body.contains("refused the sign-in"))
            #expect(refused.body.contains("work or school accounts only"))
            #expect(!refused.body.contains("Signed in with"))
            #expect(refused.body.contains("Try again"))
            #expect(!refused.body.contains("{\""), "no raw JSON")
            // Cancelled.
            let cancelled = try await Self.tryPage(h, provider: "yahoo.com", email: "ada@yahoo.com", cancel: true)
            #expect(cancelled.body.contains("Sign-in cancelled"))
            // Account exists: names the existing account's methods and what to do.
            _ = try await h.signUp(email: "both@outlook.com")
            let exists = try await Self.tryPage(h, provider: "microsoft.com", email: "both@outlook.com")
            #expect(exists.body.contains("An account already exists for both@outlook.com"))
            #expect(exists.body.contains("password"))
            #expect(exists.body.contains("then link microsoft.com"))
            #expect(!exists.body.contains("Signed in with"))
            // Signed in.
            let signedIn = try await Self.tryPage(h, provider: "yahoo.com", email: "new@yahoo.com")
            #expect(signedIn.body.contains("Signed in with yahoo.com"))
            #expect(!signedIn.body.contains("hrt1."), "no part of a refresh token on a page")
        }
    }

    /// Runs `/__dev/try` like a browser and returns the final page.
    static func tryPage(_ h: HearthHarness, provider: String, email: String, tenant: String? = nil, cancel: Bool = false) async throws -> Browser.Page {
        var next = h.baseURL + "/__dev/try?provider=\(provider)" + (tenant.map { "&tenant=\($0)" } ?? "")
        var posted = false
        for _ in 0..<10 {
            let page = try await Browser.get(next)
            if let location = page.location, page.status == 302 {
                next = location.hasPrefix("http") ? location : h.baseURL + location
                continue
            }
            if !posted, let requestId = HearthHarness.capture(#"name="request_id" value="([^"]+)""#, in: page.body),
               let action = HearthHarness.capture(#"action="([^"]+)""#, in: page.body) {
                posted = true
                let submitted = try await Browser.post(h.baseURL + action, form: [("request_id", requestId), ("email", email), ("name", ""),
                                                                                    ("action", cancel ? "cancel" : "login")])
                guard let location = submitted.location else { return submitted }
                next = location
                continue
            }
            return page
        }
        throw HarnessError("too many redirects")
    }

    // MARK: 10. Pages: one look, HTML index.

    @Test func rootIsHTMLForBrowsersAndJSONOtherwise() async throws {
        try await HearthHarness.run { h in
            let html = try await h.send(.get, "/", headers: [.accept: "text/html,application/xhtml+xml,*/*;q=0.8"])
            #expect(html.status == 200)
            #expect(html.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(html.text.contains("Hearth is running"))
            #expect(html.text.contains("name=\"viewport\""))
            let json = try await h.send(.get, "/", headers: [.accept: "application/json"])
            #expect(json.json?["projectId"] as? String == h.projectId)
            let plain = try await h.send(.get, "/")
            #expect(plain.json?["service"] as? String == "hearth")
        }
    }

    @Test func handlerErrorPagesShareTheLook() async throws {
        try await HearthHarness.run(devIdPs: true) { h in
            let handler = try await Browser.get(h.baseURL + "/__/auth/handler?apiKey=k&providerId=facebook.com")
            #expect(handler.status == 400)
            let form = try await Browser.get(h.baseURL + "/__dev/microsoft/common/oauth2/v2.0/authorize?client_id=nobody")
            #expect(form.status == 400)
            // Empty parts are left out (no dangling separator, empty note or tenant line).
            #expect(handler.body.contains("<header>Hearth</header>"), "\(handler.body)")
            #expect(!handler.body.contains("<p class=\"note\"></p>"))
            let yahoo = try await h.browserSignInForm(providerId: "yahoo.com")
            #expect(yahoo.contains("Sign in to Yahoo"))
            #expect(!yahoo.contains("Tenant:"))
            for page in [handler, form] {
                #expect(page.body.contains("name=\"viewport\""))
                #expect(page.body.contains("--accent"), "the shared stylesheet")
                #expect(page.body.contains("class=\"card error\""))
            }
        }
    }

    // MARK: 11. Refused federated sign-ins are logged at notice, with provider, reason and correlation id.

    @Test func refusalsAreLoggedAtNoticeWithoutSecrets() async throws {
        let records = LogCapture.Records()
        var logger = Logger(label: "hearth.test") { _ in LogCapture(records: records) }
        logger.logLevel = .notice
        try await HearthHarness.run(devIdPs: true, logger: logger) { h in
            let flow = try await h.browserSignIn(providerId: "microsoft.com", email: "ada@outlook.com", customParameters: ["tenant": "organizations"])
            let error = try #require(flow.webError)
            let refusal = try #require(records.all.first { $0.message.contains("refused") })
            #expect(refusal.level == .notice)
            #expect(refusal.metadata["provider"] == "microsoft.com")
            #expect(refusal.metadata["reason"]?.contains("work or school accounts only") == true)
            #expect(refusal.metadata["reason"]?.contains("AADSTS50020") == true)
            #expect(refusal.metadata["correlation_id"] == error.correlationId)
            let secret = h.devIdPs!.microsoftClient.secret
            #expect(!records.all.contains { "\($0.message) \($0.metadata)".contains(secret) || "\($0.metadata)".contains("state=") })
        }
    }
}

/// Collects log records (for log assertions).
struct LogCapture: LogHandler {
    struct Record: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    final class Records: Sendable {
        let storage = Mutex<[Record]>([])
        var all: [Record] { storage.withLock { $0 } }
    }

    let records: Records
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }.mapValues { "\($0)" }
        records.storage.withLock { $0.append(Record(level: event.level, message: "\(event.message)", metadata: merged)) }
    }
}

/// Item 12: one home for each thing, checked on the sources.
@Suite struct ModuleEdgeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func sources(_ directory: String) throws -> [(String, String)] {
        let base = root.appendingPathComponent(directory)
        let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        return try files.map { ($0, try String(contentsOf: base.appendingPathComponent($0), encoding: .utf8)) }
    }

    @Test func oneLockTypeOneDigestOneSchemeOneSetOfHandlerNames() throws {
        let all = try ["Sources/HearthAuth", "Sources/HearthServer", "Sources/HearthCore", "Sources/HearthDevIdP", "Sources/HearthOIDC",
                       "Sources/hearth"].flatMap { directory in try Self.sources(directory).map { ("\(directory)/\($0.0)", $0.1) } }
        for (name, text) in all {
            #expect(!text.contains("NSLock"), "\(name) uses NSLock")
            #expect(!text.contains("OSAllocatedUnfairLock"), "\(name)")
            #expect(!text.contains("SHA256.hash(data: Data(") || name.hasSuffix("WireEncoding.swift"), "\(name) hashes by itself")
            #expect(!text.contains("func base64URLEncodedString"), "\(name) has its own base64url")
            #expect(!text.contains("func callbackScheme"), "\(name) has its own callback scheme")
            // The OpenAPI document names the parameters as they travel (it is JSON, not code).
            for literal in ["\"firebaseError\"", "\"deep_link_id\"", "\"auth/web-context-cancelled\"", "\"auth/operation-not-allowed\""]
            where !name.hasSuffix("OpenAPIDocument.swift") {
                #expect(!text.contains(literal), "\(name) spells \(literal) itself")
            }
        }
    }

    @Test func handlerResultsRoundTripThroughTheTypedProtocol() throws {
        let error = FirebaseWebError(code: .invalidCredential, message: "No.", providerError: "access_denied", providerErrorCode: "AADSTS50020",
                                     providerErrorDescription: "AADSTS50020: User account does not exist in tenant.", correlationId: "abc-123")
        var components = URLComponents(string: "http://127.0.0.1:5000/cb")!
        components.queryItems = [URLQueryItem(name: AuthHandlerParameter.firebaseError.rawValue, value: error.jsonString),
                                 URLQueryItem(name: AuthHandlerParameter.eventId.rawValue, value: "E1")]
        let parameters = AuthHandlerProtocol.resultParameters(of: components.url!)
        #expect(parameters[.eventId] == "E1")
        #expect(FirebaseWebError(jsonString: parameters[.firebaseError] ?? "") == error)
        #expect(AuthHandlerProtocol.callbackScheme(appId: "1:2:ios:3", clientId: nil) == "app-1-2-ios-3")
        #expect(AuthHandlerProtocol.callbackScheme(appId: nil, clientId: "123-abc.apps.googleusercontent.com") == "com.googleusercontent.apps.123-abc")
        #expect(AuthHandlerProtocol.sessionIdHash("ABCDEFGHIJ") == "ABCDEFGHIJ".sha256Hex)
        #expect(WireDigest.pkceChallenge(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(Data(base64URLEncoded: Data([0xfb, 0xff]).base64URLEncodedString()) == Data([0xfb, 0xff]))
    }
}
