import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JWTKit
import NIOCore
import Synchronization
import Testing

/// A loopback endpoint with fixed answers by path, recording what it received (issue 39's caller tests; independent
/// of HearthAdmin's verifier, which HookEndpoint uses).
final class FixedHook: Sendable {
    struct Received: Sendable {
        var path: String
        var contentType: String?
        var body: String
    }

    let received = Mutex<[Received]>([])
    let base = Mutex<String>("")

    var baseURL: String { base.withLock { $0 } }
    func url(_ path: String) -> String { baseURL + path }
    func bodies(_ path: String) -> [String] { received.withLock { $0.filter { $0.path == path }.map(\.body) } }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The answers: `/allow` `{}`, `/update` a full userRecord, `/masked` fields beyond its mask, `/refuse` 403 with
    /// Firebase's error body, `/error200` an error body with 200, `/500` plain text, `/garbage`, `/array`, `/big`
    /// (70 KiB), `/redirect` to `/allow`, `/slow` (5 s), `/reserved`, `/long-claims`, `/session`, `/combined`.
    static func run<T: Sendable>(_ body: @Sendable (FixedHook) async throws -> T) async throws -> T {
        let hook = FixedHook()
        let router = Router()
        let answers: [String: @Sendable () async -> Response] = [
            "/allow": { json("{}") },
            "/update": { json(#"{"userRecord":{"updateMask":"displayName,photoURL,emailVerified,customClaims,sessionClaims","displayName":"Ada","photoURL":"https://img.example.com/a.png","emailVerified":true,"customClaims":{"role":"admin"},"sessionClaims":{"crm":"gold"}}}"#) },
            "/masked": { json(#"{"userRecord":{"updateMask":"photoUrl","displayName":"Not me","photoURL":"https://img.example.com/b.png","disabled":true}}"#) },
            "/refuse": { json(#"{"error":{"status":"PERMISSION_DENIED","message":"Only example.com addresses may sign up"}}"#, status: .forbidden) },
            "/error200": { json(#"{"error":{"status":"INVALID_ARGUMENT","message":"no"}}"#) },
            "/500": { Response(status: .internalServerError, body: .init(byteBuffer: ByteBuffer(string: "Internal Server Error"))) },
            "/garbage": { json("<html>hello</html>") },
            "/array": { json("[1,2,3]") },
            "/big": { json(#"{"pad":""# + String(repeating: "x", count: 70 * 1024) + #""}"#) },
            "/redirect": { Response(status: .found, headers: [.location: "/allow"]) },
            "/slow": {
                try? await Task.sleep(for: .seconds(5))
                return json("{}")
            },
            "/reserved": { json(#"{"userRecord":{"updateMask":"customClaims","customClaims":{"role":"x","iss":"https://evil.example.com"}}}"#) },
            "/long-claims": { json(#"{"userRecord":{"updateMask":"customClaims","customClaims":{"blob":""# + String(repeating: "y", count: 1000) + #""}}}"#) },
            "/session": { json(#"{"userRecord":{"updateMask":"sessionClaims","sessionClaims":{"s":1}}}"#) },
            "/combined": {
                json(#"{"userRecord":{"updateMask":"customClaims,sessionClaims","customClaims":{"a":""# + String(repeating: "a", count: 600)
                     + #""},"sessionClaims":{"b":""# + String(repeating: "b", count: 600) + #""}}}"#)
            },
        ]
        for (path, answer) in answers {
            router.post(RouterPath(stringLiteral: path)) { request, _ -> Response in
                let data = try await request.body.collect(upTo: 1 << 20)
                hook.received.withLock {
                    $0.append(Received(path: path, contentType: request.headers[.contentType], body: String(buffer: data)))
                }
                return await answer()
            }
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "FixedHook"))
        return try await app.test(.live) { client in
            guard let port = client.port else { throw HarnessError("no port") }
            hook.base.withLock { $0 = "http://127.0.0.1:\(port)" }
            return try await body(hook)
        }
    }
}

/// Issue 39, items 2, 3 and 5: the caller — the request and its JWT, the answer's checks, the faults, the deadline,
/// concurrency, metrics and the console's last outcome.
@Suite struct BlockingFunctionCallerTests {
    static func dev(_ configuration: inout HearthServerConfiguration) { configuration.blockingFunctions.development = true }

    /// Points `event` at `url` and returns a fresh scope that sees it, with client facts as a request sets them.
    static func configure(_ h: HearthHarness, _ event: BlockingEventType, _ url: String,
                          extra: [ProjectSettingChange] = []) async throws -> Scope {
        try await h.server.admin.updateProjectSettings([.blockingFunctionTrigger(event, url)] + extra, by: .emulatorOwner, in: h.scope)
        var scope = h.server.accounts.scopes.project
        scope.client = ClientFacts(ipAddress: "203.0.113.9", userAgent: "Mozilla/5.0 (Test)", locale: "fr")
        return scope
    }

    static func user(_ h: HearthHarness) -> UserRecord {
        let now = h.clock.now
        return UserRecord(localId: "uid-hook-1", email: "ada@example.com", emailVerified: false, displayName: "Ada L",
                          passwordHash: "x", createdAt: now.addingTimeInterval(-86_400), lastLoginAt: now.addingTimeInterval(-3600),
                          validSince: now.addingTimeInterval(-86_400), customClaims: ["plan": .string("pro")],
                          identities: [ProviderIdentity(providerId: "google.com", federatedId: "g-123", email: "ada@example.com", displayName: "Ada G")])
    }

    static let googleSignIn = BlockingSignIn(method: "google.com", rawUserInfo: ["sub": .string("g-123"), "email": .string("ada@example.com")],
                                             oauthIdToken: "provider-id-token", oauthAccessToken: "provider-access-token",
                                             oauthRefreshToken: "provider-refresh-token", oauthExpiresIn: 3599,
                                             signInAttributes: .object(["hd": .string("example.com")]))

    static func failure(_ body: () async throws -> Void) async -> HearthAPIError? {
        do {
            try await body()
            Issue.record("no error")
            return nil
        } catch let error as HearthAPIError {
            return error
        } catch {
            Issue.record("not a HearthAPIError: \(error)")
            return nil
        }
    }

    /// The server's published keys (the JWKS endpoint), as a function verifies with them.
    static func publishedKeys(_ h: HearthHarness) async throws -> JWTKeyCollection {
        let reply = try await h.send(.get, WirePaths.jwks)
        let keys = JWTKeyCollection()
        try await keys.add(jwksJSON: reply.text)
        return keys
    }

    /// Issue 39, item 2: the request is `POST` JSON `{"data":{"jwt":…}}`; the JWT verifies with the server's
    /// published keys (RS256, its kid) and carries every Firebase claim — iss, aud = the URL, sub, iat, exp (+600 s),
    /// event_id, event_type, ip_address, user_agent, locale, sign_in_method, user_record in snake case,
    /// raw_user_info, sign_in_attributes — and the provider's tokens only as `forwardInboundCredentials` allows.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func theJWTVerifiesWithThePublishedKeysAndCarriesEveryClaim(store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store, configure: Self.dev) { h in
            try await FixedHook.run { hook in
                let url = hook.url("/allow")
                let scope = try await Self.configure(h, .beforeSignIn, url)
                let update = try await h.server.accounts.blockingFunctions.beforeSignIn(Self.user(h), signIn: Self.googleSignIn, in: scope)
                #expect(update == BlockingUpdate())
                let received = try #require(hook.received.withLock { $0.first })
                #expect(received.contentType == "application/json")
                let request = try JSONDecoder().decode(JSONValue.self, from: Data(received.body.utf8))
                #expect(request.objectValue?.keys.sorted() == ["data"])
                #expect(request.objectValue?["data"]?.objectValue?.keys.sorted() == ["jwt"])
                let jwt = try #require(request.objectValue?["data"]?.objectValue?["jwt"]?.stringValue)
                let header = try #require(JWTHeaderFields(token: jwt))
                #expect(header.alg == "RS256" && header.kid != nil)
                let claims = try await Self.publishedKeys(h).verify(jwt, as: BlockingJWTPayload.self).claims
                let now = Int64(h.clock.now.timeIntervalSince1970)
                #expect(claims.iss == "https://securetoken.google.com/\(h.projectId)")
                #expect(claims.aud == url)
                #expect(claims.sub == "uid-hook-1")
                #expect(claims.iat == now && claims.exp == now + 600)
                #expect(claims.eventType == "beforeSignIn")
                #expect(claims.eventId.count >= 22)
                #expect(claims.ipAddress == "203.0.113.9" && claims.userAgent == "Mozilla/5.0 (Test)" && claims.locale == "fr")
                #expect(claims.signInMethod == "google.com")
                #expect(claims.tenantId == nil)
                #expect(claims.rawUserInfo == #"{"email":"ada@example.com","sub":"g-123"}"#)
                #expect(claims.signInAttributes == .object(["hd": .string("example.com")]))
                #expect(claims.oauthIdToken == nil && claims.oauthAccessToken == nil && claims.oauthRefreshToken == nil && claims.oauthExpiresIn == nil)
                let record = try #require(claims.userRecord)
                #expect(record.uid == "uid-hook-1" && record.email == "ada@example.com" && !record.emailVerified)
                #expect(record.displayName == "Ada L" && !record.disabled)
                #expect(record.customClaims == ["plan": .string("pro")])
                #expect(record.metadata.creationTime == Int64((h.clock.now.timeIntervalSince1970 - 86_400) * 1000))
                #expect(record.metadata.lastSignInTime == Int64((h.clock.now.timeIntervalSince1970 - 3600) * 1000))
                #expect(record.providerData.map(\.providerId).sorted() == ["google.com", "password"])
                #expect(record.providerData.first { $0.providerId == "google.com" }?.uid == "g-123")
                // The payload's keys are Firebase's snake-case ones (what firebase-functions reads).
                let payload = try #require(jwt.split(separator: ".").dropFirst().first)
                let decoded = try #require(Data(base64Encoded: String(payload).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
                    .padding(toLength: (payload.count + 3) / 4 * 4, withPad: "=", startingAt: 0)))
                let object = try #require(try JSONDecoder().decode(JSONValue.self, from: decoded).objectValue)
                for key in ["iss", "aud", "iat", "exp", "sub", "event_id", "event_type", "ip_address", "user_agent", "locale", "sign_in_method",
                            "user_record", "raw_user_info", "sign_in_attributes"] {
                    #expect(object[key] != nil, "\(key)")
                }
                let userRecord = try #require(object["user_record"]?.objectValue)
                for key in ["uid", "email", "email_verified", "display_name", "disabled", "metadata", "provider_data", "custom_claims", "tokens_valid_after_time"] {
                    #expect(userRecord[key] != nil, "user_record.\(key)")
                }

                // Forwarding on for the ID and access tokens: those two (and the lifetime) are sent, not the refresh token.
                let forwarding = try await Self.configure(h, .beforeSignIn, url, extra: [.blockingFunctionsForwardIdToken(true), .blockingFunctionsForwardAccessToken(true)])
                _ = try await h.server.accounts.blockingFunctions.beforeSignIn(Self.user(h), signIn: Self.googleSignIn, in: forwarding)
                let second = try #require(hook.bodies("/allow").last)
                let secondJWT = try #require(try JSONDecoder().decode(BlockingFunctionRequest.self, from: Data(second.utf8)).data.jwt as String?)
                let forwarded = try await h.server.keyRing.verify(secondJWT, as: BlockingJWTPayload.self).claims
                #expect(forwarded.oauthIdToken == "provider-id-token")
                #expect(forwarded.oauthAccessToken == "provider-access-token" && forwarded.oauthExpiresIn == 3599)
                #expect(forwarded.oauthRefreshToken == nil)
                #expect(forwarded.eventId != claims.eventId)
            }
        }
    }

    /// Issue 39, item 3: an answer's fields apply as its mask says (photoUrl, the emulator's spelling, too);
    /// customClaims persist, sessionClaims come back for the session; nothing is called without a function.
    @Test func answersBecomeCheckedUpdates() async throws {
        try await HearthHarness.run(configure: Self.dev) { h in
            try await FixedHook.run { hook in
                let blocking = h.server.accounts.blockingFunctions
                #expect(try await blocking.beforeCreate(Self.user(h), signIn: .init(method: "password"), in: h.scope) == nil)
                #expect(hook.received.withLock { $0.isEmpty })

                var scope = try await Self.configure(h, .beforeSignIn, hook.url("/update"))
                let update = try #require(try await blocking.beforeSignIn(Self.user(h), signIn: .init(method: "password"), in: scope))
                #expect(update.displayName == .some("Ada") && update.photoURL == .some("https://img.example.com/a.png"))
                #expect(update.emailVerified == true && update.disabled == nil)
                #expect(update.customClaims == ["role": .string("admin")] && update.sessionClaims == ["crm": .string("gold")])
                var user = Self.user(h)
                update.apply(to: &user)
                #expect(user.displayName == "Ada" && user.emailVerified && user.customClaims == ["role": .string("admin")])

                scope = try await Self.configure(h, .beforeSignIn, hook.url("/masked"))
                let masked = try #require(try await blocking.beforeSignIn(Self.user(h), signIn: .init(method: "password"), in: scope))
                #expect(masked == BlockingUpdate(photoURL: .some("https://img.example.com/b.png")))
            }
        }
    }

    /// Issue 39, item 3: reserved claim names, claims over 1000 characters (alone or custom and session combined)
    /// and session claims in beforeCreate are refused with `BLOCKING_FUNCTION_ERROR_RESPONSE` naming the problem.
    @Test func answersBreakingFirebasesLimitsAreRefused() async throws {
        try await HearthHarness.run(configure: Self.dev) { h in
            try await FixedHook.run { hook in
                let blocking = h.server.accounts.blockingFunctions
                let cases: [(BlockingEventType, String, String)] = [
                    (.beforeSignIn, "/reserved", #"reserved customClaims claim "iss""#),
                    (.beforeCreate, "/long-claims", "customClaims over 1000 characters"),
                    (.beforeCreate, "/session", "session claims may only be set by beforeSignIn"),
                    (.beforeSignIn, "/combined", "over 1000 characters of JSON combined"),
                ]
                for (event, path, words) in cases {
                    let scope = try await Self.configure(h, event, hook.url(path))
                    let error = await Self.failure {
                        _ = event == .beforeCreate
                            ? try await blocking.beforeCreate(Self.user(h), signIn: .init(method: "password"), in: scope)
                            : try await blocking.beforeSignIn(Self.user(h), signIn: .init(method: "password"), in: scope)
                    }
                    #expect(error?.code == .blockingFunctionError, "\(path)")
                    #expect(error?.httpStatus == 400, "\(path)")
                    #expect(error?.detail?.contains(words) == true, "\(path): \(error?.detail ?? "")")
                    #expect(blocking.health.last(event)?.outcome == "invalid_answer", "\(path)")
                }
                // Counted once each, as invalid answers (not also as allowed calls).
                let metrics = h.server.configuration.metrics
                #expect(metrics.counterValue(.blockingFunctionCalls, ["beforeSignIn", "invalid_answer"]) == 2)
                #expect(metrics.counterValue(.blockingFunctionCalls, ["beforeCreate", "invalid_answer"]) == 2)
                #expect(metrics.counterValue(.blockingFunctionCalls, ["beforeSignIn", "allowed"]) == nil)
            }
        }
    }

    /// Issue 39, items 3 and 5: a refusal carries the function's message in Identity Platform's words; a 500, a
    /// garbage body, a non-object, an oversized answer and a redirect (not followed) each fail with a clear
    /// `BLOCKING_FUNCTION_ERROR_RESPONSE`; an unreachable function says so; each is counted and kept as the event's
    /// last outcome; the log and the outcome never hold the JWT.
    @Test func refusalsAndFaultsAreClearErrors() async throws {
        try await HearthHarness.run(configure: Self.dev) { h in
            try await FixedHook.run { hook in
                let blocking = h.server.accounts.blockingFunctions
                let cases: [(String, Int, String, String)] = [
                    ("/refuse", 400, #"HTTP Cloud Function returned an error: {"error":{"message":"Only example.com addresses may sign up","status":"PERMISSION_DENIED"}}"#, "refused"),
                    ("/error200", 400, #"{"error":{"message":"no","status":"INVALID_ARGUMENT"}}"#, "refused"),
                    ("/500", 400, "HTTP 500 from the beforeSignIn function", "refused"),
                    ("/garbage", 503, "not a blocking-function answer", "invalid_answer"),
                    ("/array", 503, "not a blocking-function answer", "invalid_answer"),
                    ("/big", 503, "answered more than 64 KiB", "invalid_answer"),
                    ("/redirect", 503, "answered a redirect (HTTP 302), which Hearth does not follow", "invalid_answer"),
                ]
                for (path, status, words, outcome) in cases {
                    let scope = try await Self.configure(h, .beforeSignIn, hook.url(path))
                    let error = await Self.failure { _ = try await blocking.beforeSignIn(Self.user(h), signIn: .init(method: "password"), in: scope) }
                    #expect(error?.code == .blockingFunctionError, "\(path)")
                    #expect(error?.httpStatus == status, "\(path)")
                    #expect(error?.detail?.contains(words) == true, "\(path): \(error?.detail ?? "")")
                    let last = try #require(blocking.health.last(.beforeSignIn))
                    #expect(last.outcome == outcome && !last.succeeded && last.functionUri == hook.url(path), "\(path)")
                    #expect(!last.message.contains("eyJ"), "\(path)")
                }
                #expect(hook.bodies("/allow").isEmpty, "the redirect was not followed")
                #expect(h.server.configuration.metrics.counterValue(.blockingFunctionCalls, ["beforeSignIn", "refused"]) == 3)
                #expect(h.server.configuration.metrics.counterValue(.blockingFunctionCalls, ["beforeSignIn", "invalid_answer"]) == 4)

                // Nothing listens on port 9: unreachable, said so.
                let dead = try await Self.configure(h, .beforeSendEmail, "http://127.0.0.1:9/hook")
                let error = await Self.failure {
                    try await blocking.beforeSendEmail(email: "ada@example.com", emailType: .passwordReset, user: nil, in: dead)
                }
                #expect(error?.code == .blockingFunctionError && error?.httpStatus == 503)
                #expect(error?.detail?.contains("the beforeSendEmail function at http://127.0.0.1:9/hook could not be reached") == true, "\(error?.detail ?? "")")
                #expect(blocking.health.last(.beforeSendEmail)?.outcome == "unreachable")
                #expect(h.server.configuration.metrics.counterValue(.blockingFunctionCalls, ["beforeSendEmail", "unreachable"]) == 1)
                let exposition = h.server.configuration.metrics.exposition()
                #expect(exposition.contains("hearth_blocking_function_duration_seconds"))
                #expect(!exposition.contains("127.0.0.1"))
            }
        }
    }

    /// Issue 39, item 5: a function slower than the deadline fails at the deadline with a clear error (the deadline
    /// is injected short here), counted as a timeout and shown as the event's last outcome.
    @Test func aSlowFunctionFailsAtTheDeadline() async throws {
        try await HearthHarness.run(configure: { c in
            c.blockingFunctions.development = true
            c.blockingFunctions.deadline = .milliseconds(300)
        }) { h in
            try await FixedHook.run { hook in
                let blocking = h.server.accounts.blockingFunctions
                let scope = try await Self.configure(h, .beforeCreate, hook.url("/slow"))
                let started = ContinuousClock.now
                let error = await Self.failure { _ = try await blocking.beforeCreate(Self.user(h), signIn: .init(method: "password"), in: scope) }
                let elapsed = ContinuousClock.now - started
                // Less than the 5 s the function takes (a loaded machine adds seconds, not the function's 5).
                #expect(elapsed < .seconds(4), "\(elapsed)")
                #expect(error?.code == .blockingFunctionError && error?.httpStatus == 503)
                #expect(error?.detail == "the beforeCreate function at \(hook.url("/slow")) did not answer within 300 milliseconds")
                #expect(blocking.health.last(.beforeCreate)?.outcome == "timeout")
                #expect(h.server.configuration.metrics.counterValue(.blockingFunctionCalls, ["beforeCreate", "timeout"]) == 1)
                #expect(BlockingFunctions.deadline == .seconds(7))
            }
        }
    }

    /// Issue 39, item 5: calls don't queue behind a slow one — while one call waits for a function that takes 5 s,
    /// twenty others to the same server finish, all before the slow one does.
    @Test func concurrentCallsDoNotQueueBehindASlowOne() async throws {
        try await HearthHarness.run(configure: Self.dev) { h in
            try await FixedHook.run { hook in
                let blocking = h.server.accounts.blockingFunctions
                let slow = try await Self.configure(h, .beforeCreate, hook.url("/slow"))
                let fast = try await Self.configure(h, .beforeSignIn, hook.url("/allow"))
                let user = Self.user(h)
                // The slow call reports when it ended (answered, or at the 7 s deadline on a loaded machine).
                let slowCall = Task { () -> ContinuousClock.Instant in
                    _ = try? await blocking.beforeCreate(user, signIn: .init(method: "password"), in: slow)
                    return ContinuousClock.now
                }
                while hook.bodies("/slow").isEmpty { try await Task.sleep(for: .milliseconds(10)) }
                let started = ContinuousClock.now
                try await withThrowingTaskGroup(of: BlockingUpdate?.self) { group in
                    for _ in 0..<20 { group.addTask { try await blocking.beforeSignIn(user, signIn: .init(method: "password"), in: fast) } }
                    for try await update in group { #expect(update == BlockingUpdate()) }
                }
                let fastEnded = ContinuousClock.now
                #expect(fastEnded - started < .seconds(5))
                #expect(hook.bodies("/allow").count == 20)
                let slowEnded = await slowCall.value
                #expect(fastEnded < slowEnded, "the fast calls waited for the slow one")
            }
        }
    }

    /// Issue 39, item 2: a host name is resolved when called and every address checked: a name that resolves to a
    /// loopback or private address is refused (the configured URL passed, since only its name was known) unless
    /// `hooks.allow.private.networks` is on — then the connection goes to the checked address.
    @Test func aNameResolvingToAPrivateAddressIsRefusedAtCallTime() async throws {
        let resolver: @Sendable (String) async throws -> [String] = { host in
            host == "hooks.example.test" ? ["93.184.215.14", "127.0.0.1"] : []
        }
        try await HearthHarness.run(configure: { $0.blockingFunctions.resolver = resolver }) { h in
            let scope = try await Self.configure(h, .beforeSignIn, "https://hooks.example.test:9/hook")
            let error = await Self.failure { _ = try await h.server.accounts.blockingFunctions.beforeSignIn(Self.user(h), signIn: .init(method: "password"), in: scope) }
            #expect(error?.code == .blockingFunctionError)
            #expect(error?.detail?.contains("resolves to 127.0.0.1, which is a loopback address") == true, "\(error?.detail ?? "")")
            #expect(error?.detail?.contains("hooks.allow.private.networks") == true)
            #expect(h.server.accounts.blockingFunctions.health.last(.beforeSignIn)?.outcome == "unreachable")
        }
        // Allowed: the call goes on to connect (to the pinned first address; nothing listens on port 9 there).
        try await HearthHarness.run(configure: { c in
            c.blockingFunctions.resolver = { _ in ["127.0.0.1"] }
            c.blockingFunctions.allowPrivateNetworks = true
            c.blockingFunctions.deadline = .seconds(3)
        }) { h in
            let scope = try await Self.configure(h, .beforeSignIn, "https://hooks.example.test:9/hook")
            let error = await Self.failure { _ = try await h.server.accounts.blockingFunctions.beforeSignIn(Self.user(h), signIn: .init(method: "password"), in: scope) }
            #expect(error?.detail?.contains("could not be reached") == true, "\(error?.detail ?? "")")
            #expect(error?.detail?.contains("resolves to") == false)
        }
    }

    /// Issue 39, items 1 and 5: the console's "send a test event" posts a sample event and reports the function's
    /// answer without applying anything, and says when no function is configured.
    @Test func aTestEventReportsTheAnswer() async throws {
        try await HearthHarness.run(configure: Self.dev) { h in
            try await FixedHook.run { hook in
                let blocking = h.server.accounts.blockingFunctions
                let none = await blocking.sendTestEvent(.beforeSendSms, in: h.scope)
                #expect(!none.succeeded && none.message == "no beforeSendSms function is configured" && none.functionUri == nil)
                let scope = try await Self.configure(h, .beforeSignIn, hook.url("/update"))
                let result = await blocking.sendTestEvent(.beforeSignIn, in: scope)
                #expect(result.succeeded && result.httpStatus == 200, "\(result.message)")
                #expect(result.answer?.contains(#""role":"admin""#) == true)
                #expect(result.message.contains("customClaims") && result.message.contains("sessionClaims"))
                let refused = try await Self.configure(h, .beforeCreate, hook.url("/refuse"))
                let no = await blocking.sendTestEvent(.beforeCreate, in: refused)
                #expect(!no.succeeded && no.httpStatus == 403 && no.message.contains("Only example.com addresses may sign up"))
                #expect(try await h.store.user(localId: "hearth-test-event") == nil)
            }
        }
    }
}
