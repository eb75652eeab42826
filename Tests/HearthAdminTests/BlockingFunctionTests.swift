import AsyncHTTPClient
import Foundation
import HearthAdmin
import HearthAdminHummingbird
import HearthTesting
import HearthWire
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// Issue 39, item 6: HearthAdmin's blocking-function verifier, the Hummingbird helper that answers a blocking
/// function, and the strict test endpoint built on them — against a real Hearth server's published keys.
@Suite struct BlockingFunctionTests {
    static let hookURL = "https://hooks.example.com/before-create"

    /// The verifier's error reason, or nil when it verified.
    static func refusal(_ verifier: BlockingFunctionVerifier, _ jwt: String) async -> TokenVerificationError.Reason? {
        do {
            _ = try await verifier.verify(jwt)
            return nil
        } catch {
            return error.reason
        }
    }

    /// The JSON object of a body.
    static func object(_ data: some Collection<UInt8>) -> [String: JSONValue]? {
        try? JSONDecoder().decode([String: JSONValue].self, from: Data(data))
    }

    /// Issue 39, item 6: a JWT signed with the server's ID-token key for this function verifies and decodes into
    /// the typed event (user record, ip, user agent, locale, sign-in method, event id, times); wrong aud, wrong
    /// iss, expired, issued in the future, alg none, HS256, an unknown kid, a tampered payload, a Hearth ID token,
    /// a beforeCreate without user_record or with another user than `sub` are refused with the reason.
    @Test func verifierAcceptsTheServersJWTAndRefusesForgeries() async throws {
        try await HearthHarness.run { h in
            let clock = h.clock
            let verifier = BlockingFunctionVerifier(projectId: h.projectId, functionURL: Self.hookURL, keySource: .hearth(h.baseURL),
                                                    now: { clock.now })
            var claims = h.blockingClaims(.beforeCreate, functionURL: Self.hookURL, uid: "u-42", email: "ada@example.com")
            claims.tenantId = "acme-x7k2p"
            claims.rawUserInfo = #"{"login":"ada","name":"Ada"}"#
            claims.signInMethod = "github.com"
            claims.oauthAccessToken = "gho_token"
            claims.oauthExpiresIn = 3600
            let jwt = try await h.signBlockingJWT(claims)
            let event = try await verifier.verify(jwt)
            #expect(event.eventType == .beforeCreate)
            #expect(event.eventId == claims.eventId)
            #expect(event.user?.uid == "u-42")
            #expect(event.user?.email == "ada@example.com")
            #expect(event.user?.creationDate == Date(timeIntervalSince1970: TimeInterval(claims.iat)))
            #expect(event.ipAddress == "203.0.113.7")
            #expect(event.userAgent == "HearthTests/1.0")
            #expect(event.locale == "en")
            #expect(event.tenantId == "acme-x7k2p")
            #expect(event.signInMethod == "github.com")
            #expect(event.additionalUserInfo.isNewUser)
            #expect(event.additionalUserInfo.username == "ada")
            #expect(event.additionalUserInfo.profile?["name"] == .string("Ada"))
            #expect(event.credential?.accessToken == "gho_token")
            #expect(event.credential?.expirationTime == Date(timeIntervalSince1970: TimeInterval(claims.iat + 3600)))
            #expect(event.timestamp == Date(timeIntervalSince1970: TimeInterval(claims.iat)))
            #expect(event.claims == claims)
            // The request body form.
            let body = try JSONEncoder().encode(BlockingFunctionRequest(jwt: jwt))
            #expect(try await verifier.verify(requestBody: body).eventId == claims.eventId)

            // Another function's JWT, another project's, an expired one, one from the future.
            var other = claims
            other.aud = "https://hooks.example.com/before-sign-in"
            #expect(try await Self.refusal(verifier, h.signBlockingJWT(other)) == .wrongAudience)
            other = claims
            other.iss = "https://securetoken.google.com/another-project"
            #expect(try await Self.refusal(verifier, h.signBlockingJWT(other)) == .wrongIssuer)
            other = claims
            other.exp = claims.iat - 60
            #expect(try await Self.refusal(verifier, h.signBlockingJWT(other)) == .expired)
            other = claims
            other.iat = claims.iat + 600
            #expect(try await Self.refusal(verifier, h.signBlockingJWT(other)) == .notYetValid)
            // The same JWT an hour and a bit later by the server's clock.
            h.clock.advance(by: 3700)
            #expect(await Self.refusal(verifier, jwt) == .expired)
            h.clock.advance(by: -3700)

            // alg none, HS256 under the real kid, an unknown kid, a tampered payload.
            let payload = try #require(jwtPayload(jwt))
            let kid = try #require(jwtHeader(jwt)?["kid"] as? String)
            #expect(try await Self.refusal(verifier, rawJWT(header: ["alg": "none", "typ": "JWT"], payload: payload)) == .malformed)
            #expect(try await Self.refusal(verifier, rawJWT(header: ["alg": "HS256", "kid": kid], payload: payload, signature: "c2lnbmF0dXJl")) == .malformed)
            #expect(try await Self.refusal(verifier, rawJWT(header: ["alg": "RS256", "kid": "not-a-published-kid"], payload: payload, signature: "c2ln")) == .unknownKey)
            var forgedPayload = payload
            forgedPayload["sub"] = "admin"
            let parts = jwt.split(separator: ".")
            let forged = "\(parts[0]).\(try rawJWT(header: [:], payload: forgedPayload).split(separator: ".")[1]).\(parts[2])"
            #expect(await Self.refusal(verifier, forged) == .badSignature)

            // A Hearth ID token (aud = the project) is not a blocking-function JWT.
            let session = try await h.signUp(email: "idtoken@example.com")
            let idToken = try #require(session.idToken)
            do {
                _ = try await verifier.verify(idToken)
                Issue.record("an ID token verified as a blocking-function JWT")
            } catch let error as TokenVerificationError {
                #expect(error.reason == .wrongAudience)
                #expect(error.description.contains("ID token"))
            }

            // Signed, but not an event: no user_record for beforeCreate, a user other than sub, no event_id.
            other = claims
            other.userRecord = nil
            #expect(try await Self.refusal(verifier, h.signBlockingJWT(other)) == .malformed)
            other = claims
            other.sub = "someone-else"
            #expect(try await Self.refusal(verifier, h.signBlockingJWT(other)) == .malformed)
            var raw = try JSONDecoder().decode([String: JSONValue].self, from: JSONEncoder().encode(claims))
            raw["event_id"] = nil
            #expect(try await Self.refusal(verifier, h.signJWT(raw)) == .malformed)
            raw = try JSONDecoder().decode([String: JSONValue].self, from: JSONEncoder().encode(claims))
            raw["event_type"] = .string("beforeDelete")
            #expect(try await Self.refusal(verifier, h.signJWT(raw)) == .malformed)
            // The long event name reads as the short one.
            raw = try JSONDecoder().decode([String: JSONValue].self, from: JSONEncoder().encode(claims))
            raw["event_type"] = .string(BlockingEventType.beforeCreate.longName)
            #expect(try await verifier.verify(h.signJWT(raw)).eventType == .beforeCreate)
        }
    }

    /// Issue 39, item 6: the JWTs the server itself mints and posts (its "send a test event", one per event,
    /// configured through the v2 config API) verify with HearthAdmin against the published keys — at the strict
    /// endpoint, nothing refused — and decode: the event type, the test user, an `exp` ten minutes after `iat`,
    /// the email and SMS kinds; the helper's answer is what the server reports.
    @Test(arguments: HearthHarness.StoreChoice.available)
    func serverMintedJWTsVerify(_ store: HearthHarness.StoreChoice) async throws {
        try await HearthHarness.run(store: store, configure: { $0.blockingFunctions.development = true }) { h in
            try await h.withHookEndpoint { hooks in
                let triggers = BlockingEventType.allCases.map { #""\#($0.rawValue)":{"functionUri":"\#(hooks.url(for: $0))"}"# }
                let configured = try await h.send(
                    .patch, WirePaths.identityToolkitV2 + "/projects/\(h.projectId)/config?updateMask=blockingFunctions",
                    body: #"{"blockingFunctions":{"triggers":{\#(triggers.joined(separator: ","))}}}"#,
                    headers: [.authorization: "Bearer owner"])
                #expect(configured.status == 200, "\(configured.text)")
                hooks.answer(.beforeSignIn, with: .handler { event in
                    BlockingFunctionResponse(sessionClaims: ["seen": .string(event.user?.uid ?? "")])
                })
                var answers: [BlockingEventType: String] = [:]
                for type in BlockingEventType.allCases {
                    let result = await h.server.accounts.blockingFunctions.sendTestEvent(type, in: h.scope)
                    #expect(result.succeeded, "\(type): \(result.message)")
                    answers[type] = result.answer
                }
                #expect(answers[.beforeCreate] == "{}")
                #expect(answers[.beforeSignIn] == #"{"userRecord":{"sessionClaims":{"seen":"hearth-test-event"},"updateMask":"sessionClaims"}}"#)
                #expect(hooks.rejections.isEmpty, "\(hooks.rejections)")
                let events = hooks.events
                #expect(events.map(\.eventType) == BlockingEventType.allCases)
                for event in events {
                    #expect(event.claims.iss == "https://securetoken.google.com/\(h.projectId)")
                    #expect(event.claims.aud == hooks.url(for: event.eventType))
                    #expect(event.claims.exp - event.claims.iat == 600)
                    #expect(event.timestamp == Date(timeIntervalSince1970: h.clock.now.timeIntervalSince1970.rounded(.down)))
                    #expect(!event.eventId.isEmpty)
                }
                #expect(events.first?.user?.uid == "hearth-test-event")
                #expect(events.first?.additionalUserInfo.isNewUser == true)
                #expect(events.dropFirst().first?.user?.email == "test-event@example.com")
                #expect(events.dropFirst().first?.user?.lastSignInDate != nil)
                #expect(events.dropFirst(2).first?.emailType == .passwordReset)
                #expect(events.dropFirst(3).first?.smsType == .signInOrSignUp)
                #expect(Set(events.map(\.eventId)).count == 4)
            }
        }
    }

    /// Issue 39, item 6: the Hummingbird helper answers as firebase-functions does — `{}` for nil, the
    /// `userRecord` with its `updateMask` for claims and fields (a cleared display name as null), 403/400 with
    /// `{"error":{"status","message"}}` for a thrown error, 500 INTERNAL for any other error, 400 for a reserved
    /// claim, session claims at beforeCreate, claims over 1000 characters as Python's json.dumps counts them, or
    /// user fields for an email event; 400 Bad Request for a GET, a wrong content type or body; 401 for a JWT
    /// that does not verify (the reason to `onRejection`).
    @Test func responderAnswersAsFirebaseFunctions() async throws {
        try await HearthHarness.run { h in
            let clock = h.clock
            let verifier = BlockingFunctionVerifier(projectId: h.projectId, functionURL: Self.hookURL, keySource: .hearth(h.baseURL),
                                                    now: { clock.now })
            let rejections = RejectionLog()
            let router = Router()
            router.post("/hook") { request, _ in
                await BlockingFunctionResponder.respond(request, verifier, onRejection: { rejections.append($0) }) { event in
                    switch event.user?.email {
                    case "allow@example.com": return nil
                    case "role@example.com": return BlockingFunctionResponse(customClaims: ["role": .string("admin"), "level": .number(3)])
                    case "fields@example.com":
                        return BlockingFunctionResponse(displayName: .some(nil), photoURL: .some("https://img.example.com/a.png"), disabled: false,
                                                        emailVerified: true, sessionClaims: ["ip": .string(event.ipAddress)],
                                                        recaptchaActionOverride: .allow)
                    case "refuse@example.com": throw BlockingFunctionError(.permissionDenied, "Only example.org may sign up.")
                    case "invalid@example.com": throw BlockingFunctionError(.invalidArgument, "No.", details: .object(["field": .string("email")]))
                    case "crash@example.com": throw CancellationError()
                    case "reserved@example.com": return BlockingFunctionResponse(customClaims: ["role": .string("x"), "iss": .string("me"), "aud": .string("you")])
                    case "session@example.com": return BlockingFunctionResponse(sessionClaims: ["tier": .string("gold")])
                    case "big@example.com": return BlockingFunctionResponse(customClaims: ["k": .string(String(repeating: "x", count: 991))])
                    case "bigger@example.com": return BlockingFunctionResponse(customClaims: ["k": .string(String(repeating: "x", count: 992))])
                    case "accents@example.com": return BlockingFunctionResponse(customClaims: ["k": .string(String(repeating: "é", count: 166))])
                    case "combined@example.com":
                        return BlockingFunctionResponse(customClaims: ["a": .string(String(repeating: "x", count: 600))],
                                                        sessionClaims: ["b": .string(String(repeating: "y", count: 600))])
                    default: return BlockingFunctionResponse(customClaims: ["email": .string("x")])
                    }
                }
            }
            let app = Application(router: router)
            try await app.test(.router) { client in
                func post(_ email: String, event: BlockingEventType = .beforeCreate, method: HTTPRequest.Method = .post,
                          contentType: String = "application/json", body: String? = nil) async throws -> (Int, [String: JSONValue]?) {
                    var claims = h.blockingClaims(event, functionURL: Self.hookURL, email: email)
                    if event == .beforeSendEmail {
                        claims.email = email
                        claims.emailType = BlockingEmailType.passwordReset.rawValue
                    }
                    let jwt = try await h.signBlockingJWT(claims)
                    let encoded = String(decoding: try JSONEncoder().encode(BlockingFunctionRequest(jwt: jwt)), as: UTF8.self)
                    let text = body ?? encoded
                    return try await client.execute(uri: "/hook", method: method, headers: [.contentType: contentType],
                                                    body: ByteBuffer(string: text)) { response in
                        #expect(response.headers[.contentType] == "application/json")
                        return (Int(response.status.code), Self.object(response.body.readableBytesView))
                    }
                }
                func error(_ status: String, _ message: String) -> [String: JSONValue] {
                    ["error": .object(["status": .string(status), "message": .string(message)])]
                }

                var (status, body) = try await post("allow@example.com")
                #expect(status == 200 && body == [:])
                (status, body) = try await post("role@example.com")
                #expect(status == 200)
                #expect(body == ["userRecord": .object(["customClaims": .object(["role": .string("admin"), "level": .number(3)]), "updateMask": .string("customClaims")])])
                (status, body) = try await post("fields@example.com", event: .beforeSignIn)
                #expect(status == 200)
                #expect(body == [
                    "userRecord": .object([
                        "displayName": .null, "disabled": .bool(false), "emailVerified": .bool(true),
                        "photoURL": .string("https://img.example.com/a.png"), "sessionClaims": .object(["ip": .string("203.0.113.7")]),
                        "updateMask": .string("displayName,disabled,emailVerified,photoURL,sessionClaims"),
                    ]),
                    "recaptchaActionOverride": .string("ALLOW"),
                ])
                (status, body) = try await post("refuse@example.com")
                #expect(status == 403 && body == error("PERMISSION_DENIED", "Only example.org may sign up."))
                (status, body) = try await post("invalid@example.com")
                #expect(status == 400)
                #expect(body == ["error": .object(["status": .string("INVALID_ARGUMENT"), "message": .string("No."), "details": .object(["field": .string("email")])])])
                (status, body) = try await post("crash@example.com")
                #expect(status == 500 && body == error("INTERNAL", "INTERNAL"))
                (status, body) = try await post("reserved@example.com")
                #expect(status == 400 && body == error("INVALID_ARGUMENT", #"The customClaims claims "aud,iss" are reserved and cannot be specified."#))
                (status, body) = try await post("session@example.com", event: .beforeCreate)
                #expect(status == 400 && body == error("INVALID_ARGUMENT", #"The sessionClaims claims "tier" cannot be specified for the beforeCreate event."#))
                (status, body) = try await post("session@example.com", event: .beforeSignIn)
                #expect(status == 200 && body?["userRecord"]?.objectValue?["updateMask"] == .string("sessionClaims"))
                // {"k": "x…"} is 9 + n characters in json.dumps: 1000 passes, 1001 does not; "é" counts 6 (\u00e9).
                (status, body) = try await post("big@example.com")
                #expect(status == 200)
                (status, body) = try await post("bigger@example.com")
                #expect(status == 400 && body == error("INVALID_ARGUMENT", "The customClaims payload should not exceed 1000 characters."))
                (status, body) = try await post("accents@example.com")
                #expect(status == 400)
                (status, body) = try await post("combined@example.com", event: .beforeSignIn)
                #expect(status == 400 && body == error("INVALID_ARGUMENT", "The customClaims and sessionClaims payloads should not exceed 1000 characters combined."))
                // An email event may not change the user.
                (status, body) = try await post("other@example.com", event: .beforeSendEmail)
                #expect(status == 400)
                (status, body) = try await post("allow@example.com", event: .beforeSendEmail)
                #expect(status == 200 && body == [:])

                // Requests firebase-functions refuses, and a JWT that does not verify.
                #expect(rejections.entries.isEmpty)
                (status, body) = try await post("allow@example.com", contentType: "text/plain")
                #expect(status == 400 && body == error("INVALID_ARGUMENT", "Bad Request"))
                (status, body) = try await post("allow@example.com", body: #"{"data":{"jwt":"x"},"extra":1}"#)
                #expect(status == 400 && body == error("INVALID_ARGUMENT", "Bad Request"))
                (status, body) = try await post("allow@example.com", body: "not json")
                #expect(status == 400)
                let session = try await h.signUp(email: "id@example.com")
                (status, body) = try await post("allow@example.com", body: #"{"data":{"jwt":"\#(session.idToken ?? "")"}}"#)
                #expect(status == 401 && body == error("UNAUTHENTICATED", "The blocking-function JWT was refused (wrongAudience)."))
                #expect(rejections.entries.count == 4)
                #expect(rejections.entries.last?.contains("this is an ID token") == true)
                #expect(rejections.entries.allSatisfy { !$0.contains(session.idToken ?? "-") })
                try await client.execute(uri: "/hook", method: .get) { #expect($0.status == .notFound || $0.status == .methodNotAllowed) }
            }
        }
    }

    /// Issue 39, item 6: the strict test endpoint (Tests/HearthTesting/HookEndpoint.swift) records a verified
    /// event and answers by its script — one-shot replies first, then the standing one; refuses (and records) a
    /// JWT posted to another event's URL, a forged one and a wrong content type; sends garbage, an oversized
    /// body, a redirect, a 500 and a delayed answer as scripted.
    @Test func hookEndpointVerifiesRecordsAndAnswersByScript() async throws {
        // As the server calls a function: redirects are not followed.
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        do {
            try await Self.hookEndpointScript(http)
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    static func hookEndpointScript(_ http: HTTPClient) async throws {
        try await HearthHarness.run { h in
            try await h.withHookEndpoint { hooks in
                func post(_ url: String, jwt: String, contentType: String = "application/json") async throws -> (Int, String, String?) {
                    var request = HTTPClientRequest(url: url)
                    request.method = .POST
                    request.headers.add(name: "Content-Type", value: contentType)
                    request.body = .bytes(try JSONEncoder().encode(BlockingFunctionRequest(jwt: jwt)))
                    let response = try await http.execute(request, timeout: .seconds(30))
                    let body = try await response.body.collect(upTo: 1 << 22)
                    return (Int(response.status.code), String(buffer: body), response.headers["location"].first)
                }
                let createURL = hooks.url(for: .beforeCreate)
                #expect(createURL.hasPrefix("http://127.0.0.1:"))
                let jwt = try await h.signBlockingJWT(h.blockingClaims(.beforeCreate, functionURL: createURL, uid: "u-1"))

                hooks.answer(.beforeCreate, with: .customClaims(["role": .string("admin")]))
                hooks.answerNext(.beforeCreate, with: .refuse("not today"), .garbage)
                var (status, text, _) = try await post(createURL, jwt: jwt)
                #expect(status == 403 && Self.object(Data(text.utf8)) == ["error": .object(["status": .string("PERMISSION_DENIED"), "message": .string("not today")])])
                (status, text, _) = try await post(createURL, jwt: jwt)
                #expect(status == 200 && Self.object(Data(text.utf8)) == nil)
                (status, text, _) = try await post(createURL, jwt: jwt)
                #expect(status == 200 && Self.object(Data(text.utf8))?["userRecord"]?.objectValue?["customClaims"] == .object(["role": .string("admin")]))
                #expect(hooks.events.map(\.user?.uid) == ["u-1", "u-1", "u-1"])
                #expect(hooks.calls.map(\.status) == [403, 200, 200])

                hooks.answerNext(.beforeCreate, with: .oversized(bytes: 100_000), .redirect(to: "http://169.254.169.254/", status: 307),
                                 .serverError, .delay(seconds: 0.3, then: .allow),
                                 .json(#"{"userRecord":{"customClaims":{"iss":"x"},"updateMask":"customClaims"}}"#))
                (status, text, _) = try await post(createURL, jwt: jwt)
                #expect(status == 200 && text.utf8.count == 100_000 && Self.object(Data(text.utf8)) != nil)
                var location: String?
                (status, _, location) = try await post(createURL, jwt: jwt)
                #expect(status == 307 && location == "http://169.254.169.254/")
                (status, _, _) = try await post(createURL, jwt: jwt)
                #expect(status == 500)
                let started = ContinuousClock.now
                (status, text, _) = try await post(createURL, jwt: jwt)
                #expect(status == 200 && text == "{}" && ContinuousClock.now - started >= .milliseconds(300))
                (status, text, _) = try await post(createURL, jwt: jwt)
                #expect(status == 200 && text.contains(#""iss":"x""#))
                #expect(hooks.rejections.isEmpty)

                // Strict: this JWT is for /beforeCreate, not /beforeSignIn; a forged signature; text/plain.
                (status, _, _) = try await post(hooks.url(for: .beforeSignIn), jwt: jwt)
                #expect(status == 401)
                let parts = jwt.split(separator: ".")
                (status, _, _) = try await post(createURL, jwt: "\(parts[0]).\(parts[1]).\(parts[2].dropLast(4))AAAA")
                #expect(status == 401)
                (status, _, _) = try await post(createURL, jwt: jwt, contentType: "text/plain")
                #expect(status == 400)
                let rejections = hooks.rejections
                #expect(rejections.count == 3)
                #expect(rejections.first?.contains("audience") == true)
                #expect(rejections.dropFirst().first?.contains("signature") == true)
                #expect(hooks.events.count == 8)
            }
        }
    }
}

/// Rejection reasons the responder reported (thread-safe).
final class RejectionLog: Sendable {
    private let log = Mutex<[String]>([])
    func append(_ entry: String) { log.withLock { $0.append(entry) } }
    var entries: [String] { log.withLock { $0 } }
}
