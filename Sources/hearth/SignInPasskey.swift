import ArgumentParser
import Foundation
import HearthAuth
import HearthCore
import HearthPages
import HearthWire
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `hearth signin passkey [--enroll]`: the passkey page (`/__/auth/passkey`) in the browser, the answer on a loopback
/// listener. The CLI calls `passkeySignIn:start` (or `passkeyEnrollment:start` with the user's ID token), opens the page
/// with the options, a loopback `redirectUrl` and a random `state`, and finalizes with the authenticator's response
/// the page returns. No token travels in a URL.
struct PasskeyCLIFlow {
    let target: RememberedServer
    let auth: Auth
    let timeout: Int

    /// The loopback path the page returns to.
    static let callbackPath = "/passkey-callback"

    /// Signs in with a passkey (discoverable: the browser offers the passkeys it has for the server's site).
    func signIn() async throws -> AuthDataResult {
        let started = try await call(WirePaths.passkeySignInStart, StartPasskeySignInRequest(), as: StartPasskeySignInResponse.self)
        let options = try JSONEncoder().encode(started.credentialRequestOptions)
        let (receiver, fields) = try await browser(mode: "signin", options: options)
        defer { receiver.shutdown() }
        do {
            let response = try Self.decodeResponse(fields, as: PasskeyAuthenticationResponse.self)
            let session = try await call(WirePaths.passkeySignInFinalize, FinalizePasskeySignInRequest(authenticatorAuthenticationResponse: response),
                                         as: PasskeySessionResponse.self)
            if session.mfaPendingCredential != nil {
                // A passkey that did not verify the person (a project with userVerification PREFERRED) is one factor,
                // and this account has a second factor.
                throw CLIError(Self.oneFactorPasskey)
            }
            let result = try await auth.sessionResult(session.idToken, session.refreshToken, session.expiresIn, provider: "passkey", isNewUser: false)
            receiver.finish(.signedIn(providerID: "passkey", email: result.user.email))
            return result
        } catch {
            receiver.finish(.notAllowed(providerID: "passkey", message: explainPasskey(error)))
            throw error
        }
    }

    /// Enrolls a passkey named `name` on `user` (who signed in recently), and signs in with the answer's tokens.
    func enroll(_ user: User, name: String) async throws -> AuthDataResult {
        let idToken = try await user.getIDToken()
        let started = try await call(WirePaths.passkeyEnrollmentStart, StartPasskeyEnrollmentRequest(idToken: idToken),
                                     as: StartPasskeyEnrollmentResponse.self)
        let options = try JSONEncoder().encode(started.credentialCreationOptions)
        let (receiver, fields) = try await browser(mode: "enroll", options: options)
        defer { receiver.shutdown() }
        do {
            let response = try Self.decodeResponse(fields, as: PasskeyRegistrationResponse.self)
            let session = try await call(WirePaths.passkeyEnrollmentFinalize,
                                         FinalizePasskeyEnrollmentRequest(idToken: idToken, name: name, authenticatorRegistrationResponse: response),
                                         as: PasskeySessionResponse.self)
            let token = try await user.getIDTokenResult()
            let result = try await auth.sessionResult(session.idToken, session.refreshToken, session.expiresIn, provider: token.signInProvider,
                                                      isNewUser: false)
            receiver.finish(.linked(providerID: "passkey", email: result.user.email))
            return result
        } catch {
            receiver.finish(.notAllowed(providerID: "passkey", message: explainPasskey(error)))
            throw error
        }
    }

    /// Opens the passkey page and waits for its return; the listener (to answer the browser) and the return's fields.
    func browser(mode: String, options: Data) async throws -> (LoopbackReceiver, [String: String]) {
        let receiver = try LoopbackReceiver(path: Self.callbackPath, providerID: "passkey", page: Self.page)
        let state = Self.randomState()
        var components = URLComponents(string: target.server + WirePaths.passkeyPage)!
        components.queryItems = [
            URLQueryItem(name: "mode", value: mode), URLQueryItem(name: "options", value: options.base64URLEncodedString()),
            URLQueryItem(name: "redirectUrl", value: receiver.url), URLQueryItem(name: "state", value: state),
            URLQueryItem(name: "appId", value: target.appId),
        ]
        // `+` is not escaped by URLComponents; a query reader takes it for a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        progress(mode == "enroll" ? "Opening the browser to create a passkey at \(target.server)…" : "Opening the browser to sign in with a passkey at \(target.server)…")
        let waiting = showWaiting(for: "your passkey", seconds: timeout)
        defer { waiting.cancel() }
        try await SystemBrowserUIDelegate().open(components.url!)
        let received: URL
        do {
            received = try await receiver.waitForCallback(timeout: TimeInterval(timeout))
        } catch {
            receiver.shutdown()
            throw CLIError("no answer from the passkey page within \(timeout) seconds (--timeout gives more time)")
        }
        var fields: [String: String] = [:]
        for item in URLComponents(url: received, resolvingAgainstBaseURL: false)?.queryItems ?? [] { fields[item.name] = item.value ?? "" }
        guard fields["state"] == state else {
            receiver.finish(.notAllowed(providerID: "passkey", message: "This answer does not belong to this sign-in (its state differs)."))
            receiver.shutdown()
            throw CLIError("the passkey page's answer did not carry this sign-in's state: it was not started by this command; run it again")
        }
        if let error = fields["error"] {
            let description = fields["error_description"].flatMap { $0.isEmpty ? nil : $0 } ?? error
            receiver.finish(.cancelled(providerID: "passkey", message: description))
            receiver.shutdown()
            throw CLIError(error == "NotAllowedError"
                ? "the passkey was not used (cancelled, timed out, or no passkey for this site on that device): \(description)"
                : "the browser could not use a passkey (\(error)): \(description)")
        }
        return (receiver, fields)
    }

    /// The authenticator's response the page returned (`passkeyResponse`: base64url of its JSON).
    static func decodeResponse<Response: Decodable>(_ fields: [String: String], as type: Response.Type) throws -> Response {
        guard let text = fields["passkeyResponse"], let json = Data(base64URLEncoded: text),
              let response = try? JSONDecoder().decode(Response.self, from: json) else {
            throw CLIError("the passkey page returned no readable passkey response: run the command again")
        }
        return response
    }

    /// 16 random bytes, hex.
    static func randomState() -> String {
        Data(RandomID.bytes(16)).hexString
    }

    /// POSTs `body` to `path` with the API key; the answer, or a `CLIError` that says what the server refused.
    func call<Answer: Decodable>(_ path: String, _ body: some Encodable, as: Answer.Type) async throws -> Answer {
        var components = URLComponents(string: target.server + path)!
        components.queryItems = [URLQueryItem(name: "key", value: target.apiKey)]
        var request = URLRequest(url: components.url!)
        request.httpMethod = "POST"
        request.timeoutInterval = 30
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(body)
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        } catch {
            throw CLIError("the Hearth server at \(target.server) does not answer: start it (hearth serve) or pass --server with its address")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if (200..<300).contains(status), let answer = try? JSONDecoder().decode(Answer.self, from: data) { return answer }
        guard let envelope = try? JSONDecoder().decode(GoogleErrorEnvelope.self, from: data) else {
            throw CLIError("\(target.server) answered HTTP \(status) and is not a Hearth server with passkeys: check --server")
        }
        throw CLIError(Self.explain(envelope, server: target.server, apiKey: target.apiKey))
    }

    /// A server refusal in words, with what to do.
    /// A passkey sign-in that needs the account's second factor too.
    static let oneFactorPasskey = "the authenticator did not verify you (no PIN or biometrics), so the passkey counts as one factor and this account also has a second factor: use an authenticator that verifies you, or sign in with hearth signin password --email <address> and your code"

    static func explain(_ envelope: GoogleErrorEnvelope, server: String, apiKey: String) -> String {
        let message = envelope.error.message
        let detail = message.range(of: " : ").map { String(message[$0.upperBound...]) }
        switch envelope.errorCode {
        case ServerErrorCode.passkeyNotEnabled.rawValue:
            return "passkeys are not enabled on \(server): an administrator turns them on with hearth project passkeys --enable (or the console's Settings, or the passkeys.enabled project setting)"
        case ServerErrorCode.invalidApiKey.rawValue, "API key not valid. Please pass a valid API key.":
            return "\(server) refused the API key \(apiKey): pass --api-key with one of the project's keys"
        case ServerErrorCode.passkeyEnrollmentNotFound.rawValue:
            return "this passkey is not registered with \(server) (removed, or made for another server): sign in another way, then hearth signin passkey --enroll"
        case ServerErrorCode.passkeyChallengeTimeout.rawValue:
            return "the passkey took too long (or this answer was used already): run the command again"
        case ServerErrorCode.invalidAuthenticatorResponse.rawValue:
            return "the server did not accept the passkey's answer\(detail.map { ": \($0)" } ?? "")"
        case ServerErrorCode.passkeyExists.rawValue:
            return "this passkey is registered already"
        case ServerErrorCode.passkeyLimitExceeded.rawValue:
            return "this account has as many passkeys as allowed: remove one first"
        case ServerErrorCode.credentialTooOldLoginAgain.rawValue:
            return "creating a passkey needs a recent sign-in: pass --email (and the password) to sign in again first"
        case ServerErrorCode.userDisabled.rawValue:
            return "this account is disabled: an administrator can enable it (hearth users update <uid> --enable)"
        default:
            return "\(server) refused: \(message)"
        }
    }

    /// The page the loopback listener answers the browser with, in Hearth's look.
    @Sendable static func page(_ outcome: LoopbackOutcome) -> String {
        switch outcome {
        case .signedIn(_, let email):
            Pages.message(title: "Signed in with your passkey",
                          message: "\(email.map { "You are signed in as \($0)." } ?? "You are signed in.") The terminal shows the account.\n\nYou can close this window.",
                          tone: .success, badge: "hearth CLI")
        case .linked(_, let email):
            Pages.message(title: "Passkey created",
                          message: "\(email.map { "\($0) can now sign in with this passkey." } ?? "Your account can now sign in with this passkey.") The terminal shows the account.\n\nYou can close this window.",
                          tone: .success, badge: "hearth CLI")
        case .cancelled(_, let message):
            Pages.message(title: "Passkey not used", message: message + "\n\nThe terminal shows what to do.", tone: .warning, badge: "hearth CLI")
        case .notAllowed(_, let message), .refused(_, let message), .failed(_, let message):
            Pages.message(title: "Passkey not accepted", message: message + "\n\nThe terminal shows the details.", tone: .error, badge: "hearth CLI")
        case .confirmed, .accountExists:
            Pages.message(title: "Return to the terminal", message: "hearth finishes there.\n\nYou can close this window.", tone: .info, badge: "hearth CLI")
        }
    }
}

/// What a passkey step's failure says, for the browser's page.
func explainPasskey(_ error: any Error) -> String {
    if let error = error as? CLIError { return error.description.prefix(1).uppercased() + error.description.dropFirst() + "." }
    return explain(error)
}
