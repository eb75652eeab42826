import Testing
import AsyncHTTPClient
import Crypto
import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthDevIdP
import HearthOIDC
import HearthWire
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// A scripted browser for the federated flow: follows the auth handler, the provider's login form and the
/// callback over real HTTP, one redirect at a time, as a user's browser would.
public struct Browser: Sendable {
    /// One HTTP client that never follows redirects (the flow inspects each hop). Shared for the test process.
    static let client = HTTPClient(eventLoopGroupProvider: .singleton,
                                   configuration: HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: .seconds(60))))

    public struct Page: Sendable {
        public var status: Int
        public var location: String?
        public var body: String
    }

    public static func get(_ url: String) async throws -> Page {
        try await send(url, method: .GET, form: nil)
    }

    public static func post(_ url: String, form: [(String, String)]) async throws -> Page {
        try await send(url, method: .POST, form: form)
    }

    static func send(_ url: String, method: HTTPMethod, form: [(String, String)]?) async throws -> Page {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
        }
        let response = try await client.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 1 << 20)
        return Page(status: Int(response.status.code), location: response.headers.first(name: "Location"), body: String(buffer: body))
    }

    /// The value of `name` in a URL's query.
    public static func query(_ url: String, _ name: String) -> String? {
        URLComponents(string: url)?.queryItems?.first { $0.name == name }?.value
    }

    /// A `form_post` answer (Apple's): the form's target and its hidden fields, which the page's script would
    /// POST there by itself; nil for any other page.
    public static func formPost(_ page: Page) -> (action: String, fields: [(String, String)])? {
        guard page.status == 200, let action = HearthHarness.capture(#"<form method="post" action="([^"]+)">"#, in: page.body) else { return nil }
        func unescape(_ text: String) -> String {
            text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        }
        let regex = try! NSRegularExpression(pattern: #"<input type="hidden" name="([^"]+)" value="([^"]*)">"#)
        let body = page.body
        let fields = regex.matches(in: body, range: NSRange(body.startIndex..., in: body)).map { match in
            (unescape(String(body[Range(match.range(at: 1), in: body)!])), unescape(String(body[Range(match.range(at: 2), in: body)!])))
        }
        return (unescape(action), fields)
    }
}

/// What the app receives at the end of the browser part.
public struct FlowResult: Sendable {
    /// The final redirect (loopback URL or Apple deep link).
    public var appURL: String?
    /// `link`: the requestUri for signInWithIdp.
    public var link: String?
    /// `firebaseError` JSON, when the flow failed.
    public var firebaseError: [String: String]?
    /// The same, typed.
    public var webError: FirebaseWebError?
    public var eventId: String?
    /// An error page shown instead of a redirect.
    public var errorPage: Browser.Page?
    /// The raw session id to send to signInWithIdp.
    public var rawSessionId: String
    /// The provider's callback hitting Hearth (to replay it).
    public var callbackURL: String?

    /// A result built by a test's own browser steps (Apple's `form_post`).
    public init(appURL: String? = nil, rawSessionId: String) {
        self.appURL = appURL
        self.rawSessionId = rawSessionId
    }
}

extension HearthHarness {
    /// Starts the server's post-bind work (signing keys; with dev IdPs, microsoft.com and yahoo.com served by
    /// them and any app and loopback redirect accepted for demo projects).
    public func enableDevProviders() async throws {
        try await server.start()
    }

    /// A provider registration as a person would store it with `hearth providers enable`, pointing at this
    /// server's dev IdP (its client id and secret).
    public func storeDevProviderConfig(_ providerId: String, enabled: Bool = true) async throws {
        let dev = try #require(devIdPs)
        var config = providerId == "yahoo.com"
            ? IdPConfig(providerId: "yahoo.com", kind: .yahoo, clientId: dev.yahooClient.id, clientSecret: dev.yahooClient.secret,
                        endpointBase: dev.yahooBase)
            : IdPConfig(providerId: "microsoft.com", kind: .microsoft, clientId: dev.microsoftClient.id,
                        clientSecret: dev.microsoftClient.secret, endpointBase: dev.microsoftBase, graphBase: dev.microsoftBase)
        config.enabled = enabled
        try await store.saveIdPConfig(config)
    }

    /// The auth handler URL an app would open.
    public func handlerURL(providerId: String, rawSessionId: String, eventId: String = "EVENTABCDE", customParameters: [String: String]? = nil,
                           scopes: [String] = [], redirectUrl: String? = "http://127.0.0.1:65000/callback", apple: (bundleId: String, appId: String)? = nil,
                           path: String = "/__/auth/handler", apiKey: String = "test-key", extra: [(String, String)] = []) -> String {
        Self.handlerURL(baseURL: baseURL, providerId: providerId, rawSessionId: rawSessionId, eventId: eventId, customParameters: customParameters,
                        scopes: scopes, redirectUrl: redirectUrl, apple: apple, path: path, apiKey: apiKey, extra: extra)
    }

    /// The auth handler URL an app would open on the server at `baseURL` (any server, e.g. one replica of several).
    public static func handlerURL(baseURL: String, providerId: String, rawSessionId: String, eventId: String = "EVENTABCDE",
                                  customParameters: [String: String]? = nil, scopes: [String] = [],
                                  redirectUrl: String? = "http://127.0.0.1:65000/callback", apple: (bundleId: String, appId: String)? = nil,
                                  path: String = "/__/auth/handler", apiKey: String = "test-key", extra: [(String, String)] = []) -> String {
        // The names come from the protocol's types; the hash is computed here independently of the code under test.
        var typed: [(AuthHandlerParameter, String)] = [(.apiKey, apiKey), (.authType, "signInWithRedirect"), (.providerId, providerId),
                                                       (.sessionId, Data(SHA256.hash(data: Data(rawSessionId.utf8))).hexString), (.eventId, eventId),
                                                       (.scopes, scopes.joined(separator: ",")), (.v, "Hearth-tests")]
        if let apple {
            typed.append((.ibi, apple.bundleId))
            typed.append((.appId, apple.appId))
        } else if let redirectUrl {
            typed.append((.redirectUrl, redirectUrl))
        }
        if let customParameters {
            let json = try! JSONEncoder().encode(customParameters)
            typed.append((.customParameters, String(decoding: json, as: UTF8.self)))
        }
        var fields = typed.map { ($0.0.rawValue, $0.1) }
        fields.append(contentsOf: extra)
        return baseURL + path + "?" + FormEncoding.encode(fields)
    }

    /// The provider's login form a sign-in shows (its HTML).
    public func browserSignInForm(providerId: String) async throws -> String {
        let start = try await Browser.get(handlerURL(providerId: providerId, rawSessionId: RandomID.alphanumeric(count: 10).uppercased()))
        guard let authorize = start.location else { throw HarnessError("no redirect: \(start.body)") }
        return try await Browser.get(authorize).body
    }

    /// Runs the browser part of a sign-in: the handler, the provider's login form (filled with `email` and
    /// `name`), the callback, and the redirect to the app.
    public func browserSignIn(providerId: String, email: String, name: String = "", customParameters: [String: String]? = nil,
                              scopes: [String] = [], apple: (bundleId: String, appId: String)? = nil, cancel: Bool = false,
                              rawSessionId: String = RandomID.alphanumeric(count: 10).uppercased(),
                              extra: [(String, String)] = []) async throws -> FlowResult {
        var result = FlowResult(rawSessionId: rawSessionId)
        let start = try await Browser.get(handlerURL(providerId: providerId, rawSessionId: rawSessionId, customParameters: customParameters,
                                                     scopes: scopes, apple: apple, extra: extra))
        guard start.status == 302, let authorize = start.location else {
            result.errorPage = start
            return result
        }
        if !authorize.hasPrefix("http") {
            return Self.parseApp(authorize, into: result)
        }
        if authorize.contains("firebaseError=") { return Self.parseApp(authorize, into: result) }
        let form = try await Browser.get(authorize)
        guard form.status == 200 else {
            result.errorPage = form
            return result
        }
        let submitted: Browser.Page
        if let requestId = Self.capture(#"name="request_id" value="([^"]+)""#, in: form.body),
           let action = Self.capture(#"action="([^"]+)""#, in: form.body) {
            let target = action.hasPrefix("http") ? action : baseURL + action
            submitted = try await Browser.post(target, form: [("request_id", requestId), ("email", email), ("name", name), ("action", cancel ? "cancel" : "login")])
        } else {
            // oidc-provider-mock: the form posts the subject back to the authorization URL.
            submitted = try await Browser.post(authorize, form: cancel ? [("action", "deny")] : [("sub", email)])
        }
        guard submitted.status == 302, let callback = submitted.location else {
            result.errorPage = submitted
            return result
        }
        result.callbackURL = callback
        let delivered = try await Browser.get(callback)
        guard delivered.status == 302, let app = delivered.location else {
            result.errorPage = delivered
            return result
        }
        return Self.parseApp(app, into: result)
    }

    static func parseApp(_ url: String, into result: FlowResult) -> FlowResult {
        var result = result
        result.appURL = url
        var inner = url
        if let deepLink = Browser.query(url, AuthHandlerParameter.deepLinkId.rawValue) { inner = deepLink }
        result.link = Browser.query(inner, AuthHandlerParameter.link.rawValue)
        result.eventId = Browser.query(inner, AuthHandlerParameter.eventId.rawValue)
        if let error = Browser.query(inner, AuthHandlerParameter.firebaseError.rawValue), let data = error.data(using: .utf8) {
            result.firebaseError = (try? JSONDecoder().decode([String: String].self, from: data))
            result.webError = FirebaseWebError(jsonString: error)
        }
        return result
    }

    /// The first capture group of `pattern` in `text` (HTML entities for `&` undone).
    public static func capture(_ pattern: String, in text: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
              let range = Range(match.range(at: 1), in: text)
        else { return nil }
        return String(text[range]).replacingOccurrences(of: "&amp;", with: "&")
    }

    /// `accounts:signInWithIdp` with a flow's result, as the Firebase Apple SDK sends it.
    public func signInWithIdp(_ flow: FlowResult, providerId: String, idToken: String? = nil, autoCreate: Bool? = nil,
                              sessionId: String? = nil) async throws -> Reply {
        try await post(WirePaths.v3("verifyAssertion"), SignInWithIdpRequest(
            requestUri: flow.link, postBody: "providerId=\(providerId)", sessionId: sessionId ?? flow.rawSessionId,
            idToken: idToken, returnSecureToken: true, returnIdpCredential: true, autoCreate: autoCreate))
    }

    /// The whole flow: browser part and signInWithIdp.
    public func federatedSignIn(providerId: String, email: String, name: String = "", customParameters: [String: String]? = nil,
                                idToken: String? = nil, autoCreate: Bool? = nil) async throws -> Reply {
        let flow = try await browserSignIn(providerId: providerId, email: email, name: name, customParameters: customParameters)
        guard flow.link != nil else { throw HarnessError("the browser flow failed: \(flow.firebaseError ?? [:]) \(flow.errorPage?.body.prefix(300) ?? "")") }
        return try await signInWithIdp(flow, providerId: providerId, idToken: idToken, autoCreate: autoCreate)
    }
}
