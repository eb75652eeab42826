import Foundation
import HTTPTypes
import HearthCore
import HearthOIDC
import HearthServer
import HearthTesting
import HearthWire
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import _CryptoExtras

/// What a fuzz input is fed to. Each target reaches the real parsers through the way untrusted bytes arrive.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// A JWT: as an ID token (`accounts:lookup`, the admin API's bearer token), a custom token
    /// (`signInWithCustomToken`), and a provider's ID token (inside a provider's token response).
    case jwt
    /// A request body sent as JSON to one of the client API's methods (first byte picks the method).
    case json
    /// A form body (`securetoken` grant) and the form decoder.
    case form
    /// The auth handler's query string (start and provider callback).
    case query
    /// A provider's discovery document, JWKS, token response, userinfo and ID-token claims (NUL-separated).
    case provider
    /// A mail server's reply bytes (HearthMail's SMTP reply parser) and the same bytes as an email address, rendered
    /// into a message when accepted (``MailFuzz``). No server involved.
    case smtp
    /// Bytes as CBOR (HearthCore's decoder and deterministic encoder, ``WebAuthnFuzz/checkCBOR(_:)``). No server.
    case cbor
    /// Bytes as a passkey's attestation object, authenticator data, COSE key and clientDataJSON
    /// (``WebAuthnFuzz/checkWebAuthn(_:)``). No server.
    case webauthn
}

/// An input that broke an invariant: a 5xx, an error outside the Google envelope, or an unexpected error type.
public struct FuzzFinding: Error, CustomStringConvertible, Sendable {
    public let target: FuzzTarget
    public let problem: String
    public var description: String { "\(target.rawValue): \(problem)" }
}

/// What one input did: a broken invariant, or a note on how far it got (for tests that check the rig reaches deep).
public struct FuzzResult: Sendable {
    public var finding: FuzzFinding?
    public var detail: String
}

/// A Hearth server (real SQLite, dev IdPs, loopback HTTP) and a fake OpenID provider serving fuzzed documents,
/// kept running across inputs. `check` feeds one input to a target and reports a broken invariant.
public final class FuzzRig: Sendable {
    struct Job: Sendable {
        let target: FuzzTarget
        let input: [UInt8]
        let done: CheckedContinuation<FuzzResult, Never>
    }

    private let jobs: AsyncStream<Job>.Continuation
    private let task: Task<Void, any Error>
    /// Inputs that are valid for this rig's server right now (its ID token, refresh token, a pending provider
    /// callback): the corpus's own tokens were signed by servers that no longer run.
    public let freshSeeds: [FuzzTarget: [[UInt8]]]

    private init(jobs: AsyncStream<Job>.Continuation, task: Task<Void, any Error>, freshSeeds: [FuzzTarget: [[UInt8]]]) {
        self.jobs = jobs
        self.task = task
        self.freshSeeds = freshSeeds
    }

    /// Starts the servers; they run until ``stop()``.
    public static func start() async throws -> FuzzRig {
        let (stream, continuation) = AsyncStream<Job>.makeStream()
        let ready = AsyncStream<Result<[FuzzTarget: [[UInt8]]], any Error>>.makeStream()
        let task = Task {
            do {
                try await Self.serve(stream, ready: ready.continuation)
            } catch {
                ready.continuation.yield(.failure(error))
                throw error
            }
        }
        var seeds: [FuzzTarget: [[UInt8]]] = [:]
        for await result in ready.stream {
            seeds = try result.get()
            break
        }
        return FuzzRig(jobs: continuation, task: task, freshSeeds: seeds)
    }

    /// Feeds `input` to `target`; nil when every invariant held.
    public func check(_ target: FuzzTarget, _ input: [UInt8]) async -> FuzzFinding? {
        await run(target, input).finding
    }

    /// Feeds `input` to `target`: the finding, if any, and how far the input got.
    public func run(_ target: FuzzTarget, _ input: [UInt8]) async -> FuzzResult {
        await withCheckedContinuation { done in jobs.yield(Job(target: target, input: input, done: done)) }
    }

    public func stop() async {
        jobs.finish()
        _ = try? await task.value
    }

    // MARK: The servers

    /// What the fake provider serves, per path (`{{BASE}}` stands for its URL, `{{KEY}}` for its public JWK).
    final class ProviderDocuments: Sendable {
        let documents = Mutex<[String: [UInt8]]>([:])
    }

    static let providerKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    /// The provider's clock: the seeds' ID-token claims are valid at this moment (2030-01-01T00:01:00Z).
    static let providerNow = Date(timeIntervalSince1970: 1_893_456_060)

    static func publicJWK() -> String {
        let primitives = try! providerKey.publicKey.getKeyPrimitives()
        return #"{"kty":"RSA","use":"sig","alg":"RS256","kid":"fuzz-key","n":"\#(primitives.modulus.base64URLEncodedString())","e":"\#(primitives.publicExponent.base64URLEncodedString())"}"#
    }

    /// An RS256 JWT over `claims` (bytes as given) signed with the provider's key.
    static func providerSigned(claims: [UInt8]) -> String {
        let header = Data(#"{"alg":"RS256","kid":"fuzz-key","typ":"JWT"}"#.utf8).base64URLEncodedString()
        let input = header + "." + Data(claims).base64URLEncodedString()
        let signature = try! providerKey.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + signature.rawRepresentation.base64URLEncodedString()
    }

    private static func serve(_ jobs: AsyncStream<Job>, ready: AsyncStream<Result<[FuzzTarget: [[UInt8]]], any Error>>.Continuation) async throws {
        let documents = ProviderDocuments()
        let providerRouter = Router()
        let base = Mutex("")
        for path in ["/.well-known/openid-configuration", "/jwks", "/userinfo"] {
            providerRouter.get(RouterPath(path)) { _, _ in Self.served(documents, path, base: base.withLock { $0 }) }
        }
        providerRouter.post("/token") { _, _ in Self.served(documents, "/token", base: base.withLock { $0 }) }
        let quiet = { var logger = Logger(label: "hearth.fuzz"); logger.logLevel = .critical; return logger }()
        let provider = Application(router: providerRouter, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: quiet)
        try await provider.test(.live) { providerClient in
            base.withLock { $0 = "http://127.0.0.1:\(providerClient.port ?? 0)" }
            try await HearthHarness.run(configure: { _ in }, devIdPs: true, logger: quiet) { h in
                ready.yield(.success(try await freshSeeds(h)))
                for await job in jobs {
                    let result: FuzzResult
                    do {
                        result = try await Self.run(job.target, job.input, h, documents: documents, base: base.withLock { $0 }, logger: quiet)
                    } catch {
                        result = FuzzResult(finding: FuzzFinding(target: job.target, problem: "the check itself failed: \(error)"), detail: "")
                    }
                    job.done.resume(returning: result)
                }
            }
        }
    }

    /// Seeds valid for `h` now: its ID token (as a JWT, in lookup and update bodies), its refresh token (as a form
    /// grant), a sign-in start and a provider callback with a live state and code (not yet delivered).
    private static func freshSeeds(_ h: HearthHarness) async throws -> [FuzzTarget: [[UInt8]]] {
        let session = try await h.signUp(email: "seed@fuzz.example.com")
        let idToken = session.idToken ?? "", refreshToken = session.refreshToken ?? ""
        var seeds: [FuzzTarget: [[UInt8]]] = [
            .jwt: [Array(idToken.utf8)],
            .json: [[2] + Array(#"{"idToken":"\#(idToken)"}"#.utf8),
                    [3] + Array(#"{"idToken":"\#(idToken)","displayName":"Ada","deleteAttribute":["PHOTO_URL"],"returnSecureToken":true}"#.utf8),
                    [8] + Array(#"{"grant_type":"refresh_token","refresh_token":"\#(refreshToken)"}"#.utf8)],
            .form: [Array("grant_type=refresh_token&refresh_token=\(refreshToken)".utf8)],
        ]
        let start = h.handlerURL(providerId: "microsoft.com", rawSessionId: "FUZZSESSION")
        seeds[.query] = [Array((URLComponents(string: start)?.percentEncodedQuery ?? "").utf8)]
        for _ in 0..<3 {
            let redirect = try await Browser.get(start)
            guard let authorize = redirect.location else { break }
            let form = try await Browser.get(authorize)
            guard let requestId = HearthHarness.capture(#"name="request_id" value="([^"]+)""#, in: form.body),
                  let action = HearthHarness.capture(#"action="([^"]+)""#, in: form.body) else { break }
            let submitted = try await Browser.post(action.hasPrefix("http") ? action : h.baseURL + action,
                                                   form: [("request_id", requestId), ("email", "ada@contoso.com"), ("name", "Ada"), ("action", "login")])
            if let callback = submitted.location, let query = URLComponents(string: callback)?.percentEncodedQuery {
                seeds[.query, default: []].append(Array(query.utf8))
            }
        }
        return seeds
    }

    private static func served(_ documents: ProviderDocuments, _ path: String, base: String) -> Response {
        var text = String(decoding: documents.documents.withLock { $0[path] ?? [] }, as: UTF8.self)
        text = text.replacingOccurrences(of: "{{BASE}}", with: base).replacingOccurrences(of: "{{KEY}}", with: publicJWK())
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    // MARK: Targets

    static let jsonMethods: [String] = [
        WirePaths.accounts("signUp"), WirePaths.accounts("signInWithPassword"), WirePaths.accounts("lookup"),
        WirePaths.accounts("update"), WirePaths.accounts("delete"), WirePaths.accounts("createAuthUri"),
        WirePaths.accounts("signInWithIdp"), WirePaths.accounts("signInWithCustomToken"), WirePaths.secureToken,
        WirePaths.v3("verifyAssertion"), WirePaths.v3("setAccountInfo"), WirePaths.v3("getProjectConfig"),
    ]

    private static func run(_ target: FuzzTarget, _ input: [UInt8], _ h: HearthHarness, documents: ProviderDocuments, base: String,
                            logger: Logger) async throws -> FuzzResult {
        func finding(_ problem: String) -> FuzzResult { FuzzResult(finding: FuzzFinding(target: target, problem: problem), detail: problem) }
        /// A client API reply: under 500, and an error is the Google envelope with the status as its code.
        func checkAPI(_ reply: HearthHarness.Reply, _ what: String) -> FuzzResult? {
            if reply.status >= 500 { return finding("\(what) answered \(reply.status): \(reply.text.prefix(300))") }
            if reply.status >= 400 {
                guard let envelope = try? JSONDecoder().decode(GoogleErrorEnvelope.self, from: reply.body),
                      envelope.error.code == reply.status, !envelope.error.message.isEmpty
                else { return finding("\(what) answered \(reply.status) without the Google error envelope: \(reply.text.prefix(300))") }
            }
            return nil
        }
        func ok(_ reply: HearthHarness.Reply, _ what: String) -> FuzzResult {
            checkAPI(reply, what) ?? FuzzResult(finding: nil, detail: "\(what) \(reply.status)")
        }
        switch target {
        case .jwt:
            let token = String(decoding: input, as: UTF8.self)
            _ = JWTHeaderFields(token: token)
            let quoted = String(decoding: try JSONEncoder().encode(token), as: UTF8.self)
            let lookup = try await h.post(WirePaths.accounts("lookup"), raw: #"{"idToken":\#(quoted)}"#)
            if let problem = checkAPI(lookup, "lookup") { return problem }
            if let problem = checkAPI(try await h.post(WirePaths.accounts("signInWithCustomToken"), raw: #"{"token":\#(quoted),"returnSecureToken":true}"#),
                                      "signInWithCustomToken") { return problem }
            if token.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x21 && $0.value < 0x7f }) {
                let admin = try await h.send(.post, WirePaths.adminAccounts(projectId: h.projectId, "query"), body: "{}",
                                             headers: [.authorization: "Bearer \(token)"])
                if let problem = checkAPI(admin, "the admin API") { return problem }
            }
            // As a provider's ID token, behind a well-formed discovery document and key set.
            let upstream = try await provider(FuzzCorpus.providerParts(discovery: nil, jwks: nil,
                                                                       tokenResponse: Array(#"{"access_token":"a","token_type":"Bearer","id_token":\#(quoted)}"#.utf8),
                                                                       userinfo: nil, claims: nil), documents: documents, base: base, logger: logger)
            return upstream.finding == nil ? FuzzResult(finding: nil, detail: "lookup \(lookup.status); provider: \(upstream.detail)") : upstream
        case .json:
            let method = jsonMethods[Int(input.first ?? 0) % jsonMethods.count]
            let body = String(decoding: input.dropFirst(), as: UTF8.self)
            return ok(try await h.post(method, raw: body), method)
        case .form:
            _ = FormEncoding.decode(String(decoding: input, as: UTF8.self))
            let reply = try await h.send(.post, WirePaths.secureToken + "?key=test-key", body: String(decoding: input, as: UTF8.self),
                                         contentType: "application/x-www-form-urlencoded")
            return ok(reply, "securetoken (form)")
        case .query:
            let query = FuzzCorpus.queryText(input)
            var statuses: [Int] = []
            for path in [AuthHandlerProtocol.handlerPath, AuthHandlerProtocol.emulatorHandlerPath] {
                let reply = try await h.send(.get, path + "?" + query)
                if reply.status >= 500 { return finding("\(path) answered \(reply.status): \(reply.text.prefix(300))") }
                statuses.append(reply.status)
            }
            return FuzzResult(finding: nil, detail: "auth handler \(statuses)")
        case .provider:
            return try await provider(input, documents: documents, base: base, logger: logger)
        case .smtp:
            return MailFuzz.check(input).map(finding) ?? FuzzResult(finding: nil, detail: "smtp parsers ok")
        case .cbor:
            return WebAuthnFuzz.checkCBOR(input).map(finding) ?? FuzzResult(finding: nil, detail: "cbor ok")
        case .webauthn:
            return WebAuthnFuzz.checkWebAuthn(input).map(finding) ?? FuzzResult(finding: nil, detail: "webauthn parsers ok")
        }
    }

    /// A relying-party sign-in against the fake provider serving `input`'s documents: it ends in a sign-in or a
    /// ``RelyingPartyError`` (which the server shows as an error page), never another error.
    private static func provider(_ input: [UInt8], documents: ProviderDocuments, base: String, logger: Logger) async throws -> FuzzResult {
        var parts = input.split(separator: 0, maxSplits: 4, omittingEmptySubsequences: false).map(Array.init)
        while parts.count < 5 { parts.append([]) }
        let defaults = FuzzCorpus.defaultProviderParts
        func part(_ index: Int) -> [UInt8] { parts[index].isEmpty ? defaults[index] : parts[index] }
        var tokenResponse = String(decoding: part(2), as: UTF8.self)
        if tokenResponse.contains("{{ID_TOKEN}}") {
            let claims = String(decoding: part(4), as: UTF8.self).replacingOccurrences(of: "{{BASE}}", with: base)
            tokenResponse = tokenResponse.replacingOccurrences(of: "{{ID_TOKEN}}", with: providerSigned(claims: Array(claims.utf8)))
        }
        documents.documents.withLock {
            $0["/.well-known/openid-configuration"] = part(0)
            $0["/jwks"] = part(1)
            $0["/token"] = Array(tokenResponse.utf8)
            $0["/userinfo"] = part(3)
        }
        let relyingParty = RelyingParty(clock: WallClock { providerNow }, configuration: .init(minimumJWKSRefetchInterval: 0), logger: logger)
        let config = IdPConfig(providerId: "oidc.fuzz", kind: .oidc, clientId: "fuzz-client", clientSecret: "fuzz-secret", issuer: base)
        do {
            let resolved = try await relyingParty.resolve(config, entraTenantOrHostedDomain: nil)
            _ = relyingParty.authorizationURL(resolved, redirectUri: "http://127.0.0.1/__/auth/handler", state: "s", nonce: "fuzz-nonce",
                                              codeChallenge: nil, scopes: ["openid"], parameters: [])
            let signIn = try await relyingParty.complete(resolved, code: "code", redirectUri: "http://127.0.0.1/__/auth/handler", codeVerifier: nil, nonce: "fuzz-nonce")
            return FuzzResult(finding: nil, detail: "signed in as \(signIn.identity.federatedId)")
        } catch let error as RelyingPartyError {
            return FuzzResult(finding: nil, detail: "refused: \(error)")
        } catch {
            let finding = FuzzFinding(target: .provider, problem: "the relying party threw \(type(of: error)) (not a RelyingPartyError): \(error)")
            return FuzzResult(finding: finding, detail: finding.problem)
        }
    }
}
