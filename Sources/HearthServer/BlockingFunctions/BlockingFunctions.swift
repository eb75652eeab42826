import AsyncHTTPClient
import Foundation
import HearthCore
import HearthWire
import JWTKit
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// Blocking functions (issue 39): calls the project's `beforeCreate`, `beforeSignIn`, `beforeSendEmail` and
/// `beforeSendSms` functions on Identity Platform's wire — `POST functionUri` with `{"data":{"jwt":…}}`, the JWT
/// signed with the ID-token keys — and turns the answer into a checked ``BlockingUpdate`` or a refusal
/// (`BLOCKING_FUNCTION_ERROR_RESPONSE`). Held by ``AccountService`` (`accounts.blockingFunctions`); the exits and the
/// mail path call it, never inside a store transaction.
///
/// Each call has ``deadline`` in all (resolution, connection, request, answer); redirects are not followed; an answer
/// is read up to ``answerLimit``; the URL policy (``BlockingFunctionURLPolicy``) is checked again at call time and the
/// connection goes to the address that was checked. Calls are counted and timed (`hearth_blocking_function_*`),
/// logged without the JWT, tokens or claims, and the last outcome per event is kept for the console (``health``).
public final class BlockingFunctions: Sendable {
    /// The whole call's deadline.
    public static let deadline: Duration = .seconds(7)
    /// The most bytes of an answer read.
    public static let answerLimit = 64 * 1024
    /// The JWT's lifetime (`exp - iat`): the Auth emulator's 600 seconds; the call itself lasts at most ``deadline``.
    public static let jwtLifetime: Int64 = 600

    let configuration: HearthServerConfiguration
    let keyRing: KeyRing
    let logger: Logger
    /// The last outcome of each event's function (this process), for the console.
    public let health = BlockingFunctionHealth()

    init(configuration: HearthServerConfiguration, keyRing: KeyRing, logger: Logger) {
        self.configuration = configuration
        self.keyRing = keyRing
        self.logger = logger
    }

    var settings: BlockingFunctionSettings { configuration.blockingFunctions }

    // MARK: The events

    /// `beforeCreate` for a user about to be created (not stored yet). nil: no function is configured (nothing was
    /// called). Throws `BLOCKING_FUNCTION_ERROR_RESPONSE` when the function refuses, fails, or answers something
    /// unusable. Session claims are refused here (Firebase allows them in beforeSignIn only).
    public func beforeCreate(_ user: UserRecord, signIn: BlockingSignIn, in scope: Scope) async throws -> BlockingUpdate? {
        try await userEvent(.beforeCreate, user, signIn: signIn, in: scope)
    }

    /// `beforeSignIn` for a user about to get a session. nil: no function is configured. Throws as ``beforeCreate(_:signIn:in:)``.
    public func beforeSignIn(_ user: UserRecord, signIn: BlockingSignIn, in scope: Scope) async throws -> BlockingUpdate? {
        try await userEvent(.beforeSignIn, user, signIn: signIn, in: scope)
    }

    /// `beforeSendEmail` before an email action message is made: returns when it may be sent (or no function is
    /// configured); throws `BLOCKING_FUNCTION_ERROR_RESPONSE` when the function refuses or fails.
    public func beforeSendEmail(email: String, emailType: BlockingEmailType, user: UserRecord?, in scope: Scope) async throws {
        guard let uri = try await functionURI(.beforeSendEmail, in: scope) else { return }
        var claims = try await claims(.beforeSendEmail, uri: uri, user: user, signIn: nil, in: scope)
        claims.email = email
        claims.emailType = emailType.rawValue
        _ = try await call(.beforeSendEmail, uri: uri, claims: claims)
    }

    /// `beforeSendSms` before an SMS is sent: as ``beforeSendEmail(email:emailType:user:in:)``.
    public func beforeSendSms(phoneNumber: String, smsType: BlockingSmsType, user: UserRecord?, in scope: Scope) async throws {
        guard let uri = try await functionURI(.beforeSendSms, in: scope) else { return }
        var claims = try await claims(.beforeSendSms, uri: uri, user: user, signIn: nil, in: scope)
        claims.phoneNumber = phoneNumber
        claims.smsType = smsType.rawValue
        _ = try await call(.beforeSendSms, uri: uri, claims: claims)
    }

    /// Sends a sample event (a made-up user that is never stored) to the function configured for `type` and reports
    /// what happened and what it answered; nothing is applied. For the console and `hearth project hooks test`.
    public func sendTestEvent(_ type: BlockingEventType, in scope: Scope) async -> BlockingTestResult {
        let uri: String
        do {
            guard let configured = try await functionURI(type, in: scope) else {
                return BlockingTestResult(event: type, functionUri: nil, succeeded: false, httpStatus: nil, duration: .zero, answer: nil,
                                          message: "no \(type.rawValue) function is configured")
            }
            uri = configured
        } catch {
            return BlockingTestResult(event: type, functionUri: nil, succeeded: false, httpStatus: nil, duration: .zero, answer: nil,
                                      message: "\(error)")
        }
        let now = configuration.clock.now()
        let user = UserRecord(localId: "hearth-test-event", email: "test-event@example.com", displayName: "Test Event",
                              passwordHash: "test", createdAt: now, lastLoginAt: type == .beforeSignIn ? now : nil, validSince: now)
        let started = ContinuousClock.now
        let seen = ExchangeBox()
        do {
            var claims = try await claims(type, uri: uri, user: user, signIn: BlockingSignIn(method: "password"), in: scope)
            switch type {
            case .beforeSendEmail: claims.email = user.email; claims.emailType = BlockingEmailType.passwordReset.rawValue
            case .beforeSendSms: claims.phoneNumber = "+15555550100"; claims.smsType = BlockingSmsType.signInOrSignUp.rawValue
            default: break
            }
            let answer = try await call(type, uri: uri, claims: claims, exchanged: { exchange in seen.value.withLock { $0 = exchange } }) { answer in
                if let record = answer.userRecord { _ = try BlockingUpdate.checked(record, event: type) }
            }
            let exchanged = seen.value.withLock { $0 }
            var message = "the function allowed the event"
            if let record = answer.userRecord {
                let update = try BlockingUpdate.checked(record, event: type)
                message += Self.describe(update)
            }
            return BlockingTestResult(event: type, functionUri: uri, succeeded: true, httpStatus: exchanged?.status,
                                      duration: ContinuousClock.now - started, answer: exchanged?.body, message: message)
        } catch {
            let text = (error as? HearthAPIError)?.detail ?? "\(error)"
            let exchanged = seen.value.withLock { $0 }
            return BlockingTestResult(event: type, functionUri: uri, succeeded: false, httpStatus: exchanged?.status,
                                      duration: ContinuousClock.now - started, answer: exchanged?.body, message: text)
        }
    }

    static func describe(_ update: BlockingUpdate) -> String {
        var parts: [String] = []
        if update.displayName != nil { parts.append("displayName") }
        if update.photoURL != nil { parts.append("photoURL") }
        if update.disabled != nil { parts.append("disabled") }
        if update.emailVerified != nil { parts.append("emailVerified") }
        if update.customClaims != nil { parts.append("customClaims") }
        if update.sessionClaims != nil { parts.append("sessionClaims") }
        return parts.isEmpty ? "" : " and would set \(parts.joined(separator: ", "))"
    }

    // MARK: Calling

    func functionURI(_ event: BlockingEventType, in scope: Scope) async throws -> String? {
        try await scope.config().blockingFunctions?.trigger(for: event)?.functionUri
    }

    func userEvent(_ event: BlockingEventType, _ user: UserRecord, signIn: BlockingSignIn, in scope: Scope) async throws -> BlockingUpdate? {
        guard let uri = try await functionURI(event, in: scope) else { return nil }
        let claims = try await claims(event, uri: uri, user: user, signIn: signIn, in: scope)
        let answer = try await call(event, uri: uri, claims: claims, check: { answer in
            if let userRecord = answer.userRecord { _ = try BlockingUpdate.checked(userRecord, event: event) }
        })
        guard let userRecord = answer.userRecord else { return BlockingUpdate() }
        return try BlockingUpdate.checked(userRecord, event: event)
    }

    /// The JWT's claims for `event` (tokens only as `forwardInboundCredentials` allows).
    func claims(_ event: BlockingEventType, uri: String, user: UserRecord?, signIn: BlockingSignIn?, in scope: Scope) async throws -> AuthBlockingEventClaims {
        let forward = try await scope.config().blockingFunctions?.forwardInboundCredentials
        let issued = Int64(configuration.clock.now().timeIntervalSince1970)
        var claims = AuthBlockingEventClaims(
            iss: "https://securetoken.google.com/\(scope.projectId)", aud: uri, iat: issued, exp: issued + Self.jwtLifetime,
            sub: user?.localId, eventId: Self.eventId(), eventType: event.rawValue,
            ipAddress: scope.client.ipAddress, userAgent: scope.client.userAgent, locale: scope.client.locale,
            signInMethod: signIn?.method, signInSecondFactor: signIn?.secondFactor, tenantId: scope.tenantId,
            userRecord: user.map { Self.userRecord($0, tenantId: scope.tenantId) })
        if let signIn {
            claims.rawUserInfo = signIn.rawUserInfo.map { JSONValue.object($0).compactJSONString }
            claims.signInAttributes = signIn.signInAttributes
            if forward?.idToken == true { claims.oauthIdToken = signIn.oauthIdToken }
            if forward?.accessToken == true {
                claims.oauthAccessToken = signIn.oauthAccessToken
                claims.oauthExpiresIn = signIn.oauthAccessToken == nil ? nil : signIn.oauthExpiresIn.map(Int64.init)
            }
            if forward?.refreshToken == true { claims.oauthRefreshToken = signIn.oauthRefreshToken }
        }
        return claims
    }

    /// The user as the JWT carries it (`user_record`).
    static func userRecord(_ user: UserRecord, tenantId: String?) -> BlockingUserRecord {
        func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        let factors = user.mfa.factors.map {
            BlockingUserRecord.EnrolledFactor(uid: $0.enrollmentId, factorId: $0.kind.rawValue, displayName: $0.displayName,
                                              enrollmentTime: $0.enrolledAt.formatted(.iso8601), phoneNumber: $0.phoneNumber)
        }
        return BlockingUserRecord(
            uid: user.localId, email: user.email, emailVerified: user.emailVerified, displayName: user.displayName,
            photoUrl: user.photoUrl, phoneNumber: user.phoneNumber, disabled: user.disabled,
            metadata: .init(creationTime: milliseconds(user.createdAt), lastSignInTime: user.lastLoginAt.map(milliseconds)),
            providerData: user.providerUserInfo.map {
                .init(uid: $0.rawId, providerId: $0.providerId, email: $0.email, displayName: $0.displayName,
                      photoUrl: $0.photoUrl, phoneNumber: $0.phoneNumber)
            },
            customClaims: user.customClaims.isEmpty ? nil : user.customClaims, tenantId: tenantId,
            tokensValidAfterTime: Int64(user.validSince.timeIntervalSince1970),
            multiFactor: factors.isEmpty ? nil : .init(enrolledFactors: factors))
    }

    /// 16 random bytes, base64url (the emulator's `event_id` form).
    static func eventId() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// What a function answered: its status and body (at most ``answerLimit`` bytes).
    struct Exchange: Sendable {
        var status: Int
        var body: String
    }

    /// The exchange of a test event, kept for its result.
    final class ExchangeBox: Sendable {
        let value = Mutex<Exchange?>(nil)
    }

    /// How a call ended, for the metric's `outcome` label.
    enum Outcome: String {
        case allowed, refused, invalidAnswer = "invalid_answer", timeout, unreachable
    }

    /// A failed call: what the client is told, and the outcome label.
    struct Failure: Error {
        var outcome: Outcome
        var error: HearthAPIError
        var status: Int?
    }

    /// Posts the event and reads the answer: the decoded answer, or `BLOCKING_FUNCTION_ERROR_RESPONSE`. Counted,
    /// timed, logged and kept as the event's last outcome.
    func call(_ event: BlockingEventType, uri: String, claims: AuthBlockingEventClaims,
              exchanged: (@Sendable (Exchange) -> Void)? = nil,
              check: ((BlockingFunctionAnswer) throws -> Void)? = nil) async throws -> BlockingFunctionAnswer {
        let started = ContinuousClock.now
        do {
            let exchange = try await Self.race(deadline: settings.deadline) { [self] in
                try await self.exchange(event, uri: uri, claims: claims)
            } timedOut: { [settings] in
                Self.timeout(event, uri: uri, deadline: settings.deadline)
            }
            exchanged?(exchange)
            let answer = try interpret(exchange, event: event, uri: uri)
            do {
                try check?(answer)
            } catch let error as HearthAPIError {
                throw Failure(outcome: .invalidAnswer, error: error, status: exchange.status)
            }
            record(event, uri: uri, outcome: .allowed, status: exchange.status, duration: ContinuousClock.now - started, message: "allowed")
            return answer
        } catch let failure as Failure {
            record(event, uri: uri, outcome: failure.outcome, status: failure.status, duration: ContinuousClock.now - started,
                   message: failure.error.detail ?? failure.outcome.rawValue)
            throw failure.error
        }
    }

    /// The failure of a call that did not finish within `deadline`.
    static func timeout(_ event: BlockingEventType, uri: String, deadline: Duration) -> Failure {
        Failure(outcome: .timeout, error: HearthAPIError(
            .blockingFunctionError, "the \(event.rawValue) function at \(uri) did not answer within \(words(deadline))", httpStatus: 503))
    }

    /// "7 seconds", "250 milliseconds".
    static func words(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        if attoseconds == 0 { return seconds == 1 ? "1 second" : "\(seconds) seconds" }
        return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000) milliseconds"
    }

    /// Resolution (checked, pinned), signing, the POST and the answer's bytes.
    func exchange(_ event: BlockingEventType, uri: String, claims: AuthBlockingEventClaims) async throws -> Exchange {
        func unreachable(_ why: String) -> Failure {
            Failure(outcome: .unreachable, error: HearthAPIError(.blockingFunctionError, "the \(event.rawValue) function at \(uri) \(why)", httpStatus: 503))
        }
        let target: BlockingFunctionURLPolicy.Target
        switch BlockingFunctionURLPolicy.check(uri, settings: settings) {
        case .success(let checked): target = checked
        case .failure(let refusal): throw unreachable("is not called: \(refusal.message)")
        }
        let address: BlockingFunctionURLPolicy.IPAddress
        do {
            address = try await BlockingFunctionURLPolicy.resolve(target, settings: settings)
        } catch {
            throw unreachable("is not called: \(error.message)")
        }
        let jwt = try await keyRing.sign(payload: BlockingJWTPayload(claims: claims))
        var request = HTTPClientRequest(url: uri)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Hearth-BlockingFunctions")
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(BlockingFunctionRequest(jwt: jwt))))
        let client = BlockingHTTPClients.shared.client(host: target.host, pinnedTo: target.literal == nil ? address.description : nil)
        let response: HTTPClientResponse
        do {
            // AsyncHTTPClient's own timeout is a backstop a second after the call's deadline (``race``).
            response = try await client.execute(request, timeout: .nanoseconds(Self.nanoseconds(settings.deadline + .seconds(1))))
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as HTTPClientError where [.deadlineExceeded, .readTimeout, .connectTimeout].contains(error) {
            throw Self.timeout(event, uri: uri, deadline: settings.deadline)
        } catch {
            throw unreachable("could not be reached (\(Self.transportWords(error)))")
        }
        let status = Int(response.status.code)
        if (300..<400).contains(status) {
            throw Failure(outcome: .invalidAnswer, error: HearthAPIError(
                .blockingFunctionError, "the \(event.rawValue) function at \(uri) answered a redirect (HTTP \(status)), which Hearth does not follow: configure the function's final URL", httpStatus: 503), status: status)
        }
        let body: ByteBuffer
        do {
            body = try await response.body.collect(upTo: Self.answerLimit)
        } catch is NIOTooManyBytesError {
            throw Failure(outcome: .invalidAnswer, error: HearthAPIError(
                .blockingFunctionError, "the \(event.rawValue) function at \(uri) answered more than \(Self.answerLimit / 1024) KiB", httpStatus: 503), status: status)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw unreachable("broke off its answer (\(Self.transportWords(error)))")
        }
        return Exchange(status: status, body: String(decoding: body.readableBytesView, as: UTF8.self))
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }

    static func transportWords(_ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("connectTimeout") || text.contains("deadlineExceeded") || text.contains("readTimeout") { return "timed out" }
        if text.lowercased().contains("refused") { return "connection refused" }
        if text.contains("TLS") || text.contains("SSL") || text.contains("handshake") || text.contains("certificate") { return "TLS failed: \(text.prefix(120))" }
        return String(text.prefix(160))
    }

    /// The answer's meaning: a refusal (a non-2xx status or an `error` body) in Identity Platform's words, an
    /// unusable body, or the decoded answer.
    func interpret(_ exchange: Exchange, event: BlockingEventType, uri: String) throws -> BlockingFunctionAnswer {
        let data = Data(exchange.body.utf8)
        let object = try? JSONDecoder().decode(JSONValue.self, from: data)
        if let error = object?.objectValue?["error"]?.objectValue {
            let message = error["message"]?.stringValue ?? ""
            let status = error["status"]?.stringValue ?? ""
            throw Failure(outcome: .refused, error: HearthAPIError(
                .blockingFunctionError, "HTTP Cloud Function returned an error: \(Self.errorJSON(message: message, status: status))"), status: exchange.status)
        }
        guard (200..<300).contains(exchange.status) else {
            throw Failure(outcome: .refused, error: HearthAPIError(
                .blockingFunctionError, "HTTP Cloud Function returned an error: HTTP \(exchange.status) from the \(event.rawValue) function at \(uri), without an error body"), status: exchange.status)
        }
        let text = exchange.body.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty { return BlockingFunctionAnswer() }
        guard case .object? = object, let answer = try? JSONDecoder().decode(BlockingFunctionAnswer.self, from: data) else {
            throw Failure(outcome: .invalidAnswer, error: HearthAPIError(
                .blockingFunctionError, "the \(event.rawValue) function at \(uri) answered HTTP \(exchange.status) with a body that is not a blocking-function answer (a JSON object {\"userRecord\": {…}} or {})", httpStatus: 503), status: exchange.status)
        }
        return answer
    }

    /// `{"error":{"message":"…","status":"…"}}`, the message cut to 1000 characters.
    static func errorJSON(message: String, status: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        func quoted(_ text: String) -> String {
            (try? String(decoding: encoder.encode(text), as: UTF8.self)) ?? "\"\""
        }
        return #"{"error":{"message":\#(quoted(String(message.prefix(1000)))),"status":\#(quoted(String(status.prefix(64))))}}"#
    }

    /// Counts, times, logs and keeps the call's outcome (never the JWT, tokens or claims).
    func record(_ event: BlockingEventType, uri: String, outcome: Outcome, status: Int?, duration: Duration, message: String) {
        let metrics = configuration.metrics
        metrics.count(.blockingFunctionCalls, [event.rawValue, outcome.rawValue])
        metrics.record(.blockingFunctionDuration, [event.rawValue], nanoseconds: Self.nanoseconds(duration))
        let host = URLComponents(string: uri)?.host ?? "?"
        let milliseconds = Self.nanoseconds(duration) / 1_000_000
        var metadata: Logger.Metadata = ["event": "\(event.rawValue)", "host": "\(host)", "outcome": "\(outcome.rawValue)", "duration_ms": "\(milliseconds)"]
        if let status { metadata["status"] = "\(status)" }
        if outcome == .allowed {
            logger.info("blocking function called", metadata: metadata)
        } else {
            metadata["reason"] = "\(message.prefix(300))"
            logger.warning("blocking function call failed", metadata: metadata)
        }
        health.record(.init(event: event, functionUri: uri, at: configuration.clock.now(), succeeded: outcome == .allowed,
                            outcome: outcome.rawValue, httpStatus: status, message: String(message.prefix(500)), duration: duration))
    }

    // MARK: Deadline

    /// Runs `body` with a deadline: `timedOut()`'s failure after `deadline` (the body is cancelled and not waited for,
    /// so a resolver stuck in `getaddrinfo` cannot hold the caller).
    static func race<T: Sendable>(deadline: Duration, _ body: @escaping @Sendable () async throws -> T,
                                  timedOut: @escaping @Sendable () -> any Error) async throws -> T {
        let once = Once<T>()
        return try await withCheckedThrowingContinuation { continuation in
            once.set(continuation)
            let work = Task {
                do { once.resume(with: .success(try await body())) } catch { once.resume(with: .failure(error)) }
            }
            let timer = Task {
                try? await Task.sleep(for: deadline)
                guard !Task.isCancelled else { return }
                if once.resume(with: .failure(timedOut())) { work.cancel() }
            }
            once.onFinish { timer.cancel() }
        }
    }

    /// A continuation resumed once, by whichever side finishes first.
    final class Once<T: Sendable>: Sendable {
        private let state = Mutex<(continuation: CheckedContinuation<T, any Error>?, finished: Bool, onFinish: (@Sendable () -> Void)?)>((nil, false, nil))

        func set(_ continuation: CheckedContinuation<T, any Error>) { state.withLock { $0.continuation = continuation } }

        /// Runs `action` once finished (at once when finished already).
        func onFinish(_ action: @escaping @Sendable () -> Void) {
            let now = state.withLock { state -> Bool in
                if state.finished { return true }
                state.onFinish = action
                return false
            }
            if now { action() }
        }

        /// Resumes the continuation unless it was resumed already; true when this call resumed it.
        @discardableResult
        func resume(with result: Result<T, any Error>) -> Bool {
            let taken = state.withLock { state -> (CheckedContinuation<T, any Error>, (@Sendable () -> Void)?)? in
                guard !state.finished, let continuation = state.continuation else { return nil }
                state.finished = true
                state.continuation = nil
                defer { state.onFinish = nil }
                return (continuation, state.onFinish)
            }
            guard let (continuation, action) = taken else { return false }
            continuation.resume(with: result)
            action?()
            return true
        }
    }
}

/// The outcome of ``BlockingFunctions/sendTestEvent(_:in:)``: what the function answered to a sample event.
public struct BlockingTestResult: Sendable, Equatable {
    public var event: BlockingEventType
    /// The URL called (nil: none is configured).
    public var functionUri: String?
    /// The function allowed the event and its answer passed Hearth's checks.
    public var succeeded: Bool
    public var httpStatus: Int?
    public var duration: Duration
    /// The answer's body as sent (at most 64 KiB).
    public var answer: String?
    /// What happened, in words.
    public var message: String
}

/// The last outcome of each event's function in this process (each replica keeps its own), for the console.
public final class BlockingFunctionHealth: Sendable {
    /// One call's outcome.
    public struct Outcome: Sendable, Equatable {
        public var event: BlockingEventType
        public var functionUri: String
        public var at: Date
        /// Allowed, with a usable answer.
        public var succeeded: Bool
        /// `allowed`, `refused`, `invalid_answer`, `timeout` or `unreachable`.
        public var outcome: String
        public var httpStatus: Int?
        public var message: String
        public var duration: Duration
        /// Failed calls in a row to this URL up to this one (0 when it worked; ``isFailure``), for the console.
        public var consecutiveFailures = 0
        /// When this URL's function last worked (this call's time when it did); nil: not since the server started.
        public var lastSuccess: Date?
    }

    private let outcomes = Mutex<[BlockingEventType: Outcome]>([:])

    /// The last outcome of `event`'s function, nil before the first call.
    public func last(_ event: BlockingEventType) -> Outcome? { outcomes.withLock { $0[event] } }

    /// Every event's last outcome.
    public var all: [BlockingEventType: Outcome] { outcomes.withLock { $0 } }

    func record(_ outcome: Outcome) {
        outcomes.withLock { outcomes in
            var next = outcome
            let previous = outcomes[outcome.event].flatMap { $0.functionUri == outcome.functionUri ? $0 : nil }
            next.consecutiveFailures = outcome.isFailure ? (previous?.consecutiveFailures ?? 0) + 1 : 0
            next.lastSuccess = outcome.isFailure ? previous?.lastSuccess : outcome.at
            outcomes[outcome.event] = next
        }
    }
}

/// The JWT a function receives, as jwt-kit signs it: exactly ``AuthBlockingEventClaims``' JSON.
public struct BlockingJWTPayload: JWTPayload, Equatable {
    public var claims: AuthBlockingEventClaims

    public init(claims: AuthBlockingEventClaims) { self.claims = claims }

    public init(from decoder: any Decoder) throws { claims = try AuthBlockingEventClaims(from: decoder) }

    public func encode(to encoder: any Encoder) throws { try claims.encode(to: encoder) }

    /// Nothing here: whoever verifies checks `iss`, `aud` and the times.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// The HTTP clients of blocking-function calls, one per (host, pinned address): redirects off, a large per-host
/// pool (concurrent sign-ins never queue behind one slow call), and AsyncHTTPClient's `dnsOverride` mapping the host
/// to the address the policy checked, so the connection cannot go elsewhere (DNS rebinding) while TLS still checks
/// the host name. Process-wide (clients are never deinitialized unshut); the least recently used one beyond 32 is
/// shut down a minute later, when its calls have long ended.
final class BlockingHTTPClients: Sendable {
    static let shared = BlockingHTTPClients()
    static let capacity = 32

    private let clients = Mutex<[String: (client: HTTPClient, used: UInt64)]>([:])
    private let tick = Atomic<UInt64>(0)

    func client(host: String, pinnedTo address: String?) -> HTTPClient {
        let key = "\(host)|\(address ?? "")"
        let use = tick.add(1, ordering: .relaxed).newValue
        var evicted: HTTPClient?
        let client = clients.withLock { clients -> HTTPClient in
            if let existing = clients[key] {
                clients[key] = (existing.client, use)
                return existing.client
            }
            var configuration = HTTPClient.Configuration(
                redirectConfiguration: .disallow,
                timeout: .init(connect: .seconds(7), read: .seconds(7)),
                connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 512),
                decompression: .disabled)
            // A refused connection fails at once (no retries until the connect timeout): the function is down.
            configuration.connectionPool.retryConnectionEstablishment = false
            if let address { configuration.dnsOverride = [host: address] }
            let made = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            clients[key] = (made, use)
            if clients.count > Self.capacity, let oldest = clients.min(by: { $0.value.used < $1.value.used }) {
                clients[oldest.key] = nil
                evicted = oldest.value.client
            }
            return made
        }
        if let evicted {
            Task {
                try? await Task.sleep(for: .seconds(60))
                try? await evicted.shutdown()
            }
        }
        return client
    }
}
