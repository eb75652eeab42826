import ArgumentParser
import Foundation
import HearthAuth
import HearthWire
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Options that say which Hearth server and project the client commands talk to. Without them, the server
/// and project of the last `hearth signin` are used (remembered next to the signed-in user), then defaults.
struct ClientOptions: ParsableArguments {
    @Option(help: "The Hearth server (default: the one of the last signin, else http://127.0.0.1:9099; env HEARTH_SERVER_URL).")
    var server: String?
    @Option(name: .customLong("api-key"), help: "The project's API key (default: the last signin's, else demo-key; env HEARTH_API_KEY).")
    var apiKey: String?
    @Option(name: .customLong("project-id"), help: "The project id (default: the last signin's, else demo-hearth; env HEARTH_PROJECT_ID).")
    var projectId: String?
    @Option(name: .customLong("app-id"), help: "The registered desktop app id (default hearth-cli, env HEARTH_APP_ID).")
    var appId: String?

    /// The resolved target: options, environment, remembered, defaults.
    func target() throws -> RememberedServer {
        let environment = ProcessInfo.processInfo.environment
        let remembered = RememberedServer.load()
        let serverText = server ?? environment["HEARTH_SERVER_URL"] ?? remembered?.server ?? "http://127.0.0.1:9099"
        guard let url = URL(string: serverText), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw ValidationError("--server \(serverText) is not an http(s) URL such as http://127.0.0.1:9099")
        }
        return RememberedServer(
            server: serverText.hasSuffix("/") ? String(serverText.dropLast()) : serverText,
            apiKey: apiKey ?? environment["HEARTH_API_KEY"] ?? remembered?.apiKey ?? "demo-key",
            projectId: projectId ?? environment["HEARTH_PROJECT_ID"] ?? remembered?.projectId ?? "demo-hearth",
            appId: appId ?? environment["HEARTH_APP_ID"] ?? remembered?.appId ?? "hearth-cli")
    }

    func auth(timeout: Int? = nil) throws -> Auth {
        let target = try target()
        return Auth(configuration: AuthConfiguration(
            serverURL: URL(string: target.server)!, apiKey: target.apiKey, projectId: target.projectId, appId: target.appId, bundleId: nil,
            persistence: FileUserPersistence(), webSignInTimeout: TimeInterval(timeout ?? 300), loopbackPage: LoopbackPages.render))
    }
}

/// `--timeout`, for the commands that wait for a browser (signin, link).
struct BrowserWaitOptions: ParsableArguments {
    @Option(help: "How long to wait for the browser sign-in, in seconds (default 300).")
    var timeout: Int?

    func validate() throws {
        if let timeout, !(5...3600).contains(timeout) { throw ValidationError("--timeout must be between 5 and 3600 seconds, got \(timeout)") }
    }
}

/// The server, project and app of the last successful `hearth signin`, kept (0600) next to the signed-in user so
/// that `whoami`, `link` and `signout` talk to the same server without `--server`.
struct RememberedServer: Codable, Equatable {
    var server: String
    var apiKey: String
    var projectId: String
    var appId: String

    static var fileURL: URL {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        return base.appendingPathComponent("hearth").appendingPathComponent("cli-server.json")
    }

    static func load() -> RememberedServer? {
        guard let data = FileManager.default.contents(atPath: fileURL.path) else { return nil }
        return try? JSONDecoder().decode(RememberedServer.self, from: data)
    }

    func save() {
        let url = Self.fileURL
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        guard let data = try? JSONEncoder().encode(self) else { return }
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".cli-server.\(UUID().uuidString).tmp")
        if FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) {
            _ = rename(temporary.path, url.path)
        }
    }

    static func forget() { try? FileManager.default.removeItem(at: fileURL) }
}

/// Checks, in seconds, that the server answers and that the provider is enabled there, before a browser opens.
enum Preflight {
    static func check(_ target: RememberedServer, providerId: String) async throws {
        let session = URLSession(configuration: .ephemeral)
        var components = URLComponents(string: target.server + WirePaths.accounts("createAuthUri"))!
        components.queryItems = [URLQueryItem(name: "key", value: target.apiKey)]
        var request = URLRequest(url: components.url!)
        request.httpMethod = "POST"
        request.timeoutInterval = 5
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(CreateAuthUriRequest(identifier: nil, providerId: providerId, appId: target.appId))
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw CLIError("the Hearth server at \(target.server) does not answer: start it (hearth serve) or pass --server with its address")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if (200..<300).contains(status) { return }
        guard let envelope = try? JSONDecoder().decode(GoogleErrorEnvelope.self, from: data) else {
            throw CLIError("\(target.server) answered HTTP \(status) and is not a Hearth server: check --server")
        }
        switch ServerErrorCode(rawValue: envelope.errorCode) {
        case .operationNotAllowed?:
            throw CLIError("\(providerId) sign-in is not enabled on \(target.server): enable it there (hearth providers enable \(providerId) --client-id … --client-secret …) or run the server with --dev")
        case .invalidProviderId?:
            throw CLIError("\(target.server) does not support \(providerId): use microsoft.com, yahoo.com, apple.com, google.com or oidc.<name>")
        case .invalidApiKey?:
            throw CLIError("\(target.server) refused the API key \(target.apiKey): pass --api-key with one of the project's keys")
        case .appNotAuthorized?:
            throw CLIError("\(target.server) would not hand the sign-in to this program: \(envelope.error.message.replacingOccurrences(of: "APP_NOT_AUTHORIZED : ", with: "")) on the server's data, or pass --app-id with a registered desktop app id")
        default:
            throw CLIError("\(target.server) refused the sign-in: \(envelope.error.message)")
        }
    }
}

/// Shows what the CLI waits for and the time left, on standard error, until cancelled.
func showWaiting(for providerId: String, seconds: Int) -> Task<Void, Never> {
    Task {
        let deadline = Date().addingTimeInterval(TimeInterval(seconds))
        while !Task.isCancelled {
            let left = max(0, Int(deadline.timeIntervalSinceNow.rounded()))
            progress("Waiting for you to sign in with \(providerId) in the browser: \(left / 60):\(String(format: "%02d", left % 60)) left (Ctrl-C to cancel)")
            try? await Task.sleep(for: .seconds(left > 60 ? 30 : 10))
        }
    }
}

/// The providers `signin` (`allowEmail`: also password, email-link and passkey) and `link` accept.
func checkProviderId(_ providerId: String, allowEmail: Bool) throws {
    let known = ["microsoft.com", "yahoo.com", "apple.com", "google.com"] + (allowEmail ? ["password", "email-link", "passkey", "phone"] : [])
    let oidc = providerId.hasPrefix("oidc.") && providerId.count > 5
        && providerId.dropFirst(5).allSatisfy { ($0.isLetter && $0.isLowercase) || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }
    guard known.contains(providerId) || oidc else {
        throw ValidationError("unknown provider \(providerId): use \(known.joined(separator: ", ")) or oidc.<name>")
    }
}

/// Prints who is signed in.
func describe(_ user: User, showTokens: Bool) async throws -> String {
    let token = try await user.getIDTokenResult()
    let providers = user.providerData.map(\.providerID)
    var lines = [
        "Signed in as \(user.uid)",
        "  provider:  \(token.signInProvider)\(token.signInSecondFactor.map { " + second factor \($0)" } ?? "")",
        "  email:     \(user.email ?? "-")\(user.email == nil ? "" : user.emailVerified ? " (verified)" : " (not verified)")",
        "  phone:     \(user.phoneNumber ?? "-")",
        "  name:      \(user.displayName ?? "-")",
        "  linked:    \(providers.isEmpty ? "-" : providers.joined(separator: ", "))",
    ]
    for info in user.providerData where info.providerID != "password" && info.providerID != "phone" {
        lines.append("  \(info.providerID) id: \(info.uid)")
    }
    if showTokens {
        lines.append("  ID token:      \(token.token)")
        lines.append("  refresh token: \(await user.refreshToken ?? "-")")
    } else {
        lines.append("  ID token:  \(token.token.prefix(12))… (\(token.token.count) characters; --show-tokens prints it), expires \(token.expirationDate.formatted(.iso8601))")
    }
    return lines.joined(separator: "\n")
}

func progress(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Turns SDK errors into a readable message: what happened, the provider's reason, and what to do next.
func explain(_ error: any Error, providerId: String? = nil, server: String? = nil, email: String? = nil) -> String {
    if let error = error as? CLIError { return error.description }
    let error = error as NSError
    guard error.domain == AuthErrorDomain, let code = AuthErrorCode(rawValue: error.code) else { return error.localizedDescription }
    var text: String
    switch code {
    case .networkError:
        text = "cannot reach the Hearth server\(server.map { " at \($0)" } ?? ""): start it (hearth serve) or pass --server with its address"
    case _ where providerId == "password" && [AuthErrorCode.invalidCredential, .wrongPassword, .userNotFound].contains(code):
        text = "wrong email or password\(email.map { " for \($0)" } ?? "") (or no such account): check both and try again"
    case .tooManyRequests:
        text = "too many attempts: wait a few minutes, then try again"
    case .invalidActionCode where providerId == "email-link":
        text = "this sign-in link is not valid: it was used already, belongs to another address, or was cut when copied; run hearth signin email-link --email \(email ?? "<address>") for a new one"
    case .expiredActionCode where providerId == "email-link":
        text = "this sign-in link has expired: run hearth signin email-link --email \(email ?? "<address>") for a new one"
    case .invalidEmail, .missingEmail:
        text = "\(email.map { "\"\($0)\" is not" } ?? "that is not") a valid email address: check --email"
    case .emailSendingNotConfigured:
        text = "the server at \(server ?? "?") cannot send email: \(error.localizedDescription)"
    case .unauthorizedDomain:
        text = "the server does not accept links back to \(server ?? "itself"): add its host to the project's authorized domains"
    case .quotaExceeded where providerId == "phone":
        text = "the project's SMS budget is used up for today: \(error.localizedDescription)"
    case .quotaExceeded:
        text = "the server's email quota is used up for now: try again later"
    case .invalidPhoneNumber, .missingPhoneNumber:
        text = "that is not a phone number the server takes: \(error.localizedDescription) (for example hearth signin phone +15555550100)"
    case .invalidVerificationCode where providerId == "phone":
        text = "the SMS code was not accepted (wrong, or used already): run hearth signin phone again for a new code"
    case .sessionExpired where providerId == "phone", .invalidVerificationID where providerId == "phone":
        text = "the SMS code expired or was used already (a code lasts 5 minutes): run hearth signin phone again for a new one"
    case .unsupportedFirstFactor:
        text = "this number's account has a second factor, so it cannot sign in with its phone number: sign in the way the account was created (e.g. hearth signin password --email …)"
    case .missingRecaptchaToken, .captchaCheckFailed:
        text = "this project checks apps with reCAPTCHA before it sends an SMS: \(error.localizedDescription) (pass --recaptcha-token with a token from the app's reCAPTCHA)"
    case .operationNotAllowed where providerId == "phone":
        text = "the server refused to send the SMS: \(error.localizedDescription)"
    case .appNotAuthorized:
        text = "the server would not hand the sign-in to this program: \(error.localizedDescription)"
    case .userDisabled:
        text = "this account is disabled: an administrator can enable it (hearth users update <uid> --enable)"
    case .invalidVerificationCode:
        text = "the second-factor code was not accepted (wrong, too old, or used already): run hearth signin again with the current code"
    case .invalidMultiFactorSession:
        text = "the sign-in waited too long for the second factor (or was completed already): run hearth signin again"
    case .multiFactorInfoNotFound:
        text = "this account has no such second factor: run hearth signin again and pick one from the list"
    case .secondFactorRequired:
        text = "this account has a second factor: pass --totp-code (or --recovery-code), or run hearth signin on a terminal"
    case .webContextCancelled:
        text = error.userInfo[AuthErrors.userInfoWebErrorCodeKey] == nil
            ? "Sign-in not completed in time or cancelled: \(error.localizedDescription) (--timeout gives more time)"
            : "Sign-in cancelled: \(error.localizedDescription)"
    case .invalidCredential where error.userInfo[AuthErrors.userInfoProviderErrorKey] != nil:
        text = "Sign-in refused by \(providerId ?? "the provider"): \(error.localizedDescription)"
    default:
        text = "\(code) (\(code.rawValue)): \(error.localizedDescription)"
    }
    if let providerCode = error.userInfo[AuthErrors.userInfoProviderErrorCodeKey] as? String {
        text += "\n  provider's code: \(providerCode)"
    }
    if let description = error.userInfo[AuthErrors.userInfoProviderErrorDescriptionKey] as? String {
        text += "\n  provider said: \(description)"
    }
    if let correlation = error.userInfo[AuthErrors.userInfoCorrelationIdKey] as? String {
        text += "\n  correlation id (in the server log): \(correlation)"
    }
    if code == .accountExistsWithDifferentCredential, let email = error.userInfo[AuthErrorUserInfoEmailKey] as? String {
        let methods = error.userInfo[AuthErrors.userInfoSignInMethodsKey] as? [String] ?? []
        let provider = providerId ?? "<provider>"
        text += "\nAn account with \(email) already exists"
        if methods.isEmpty {
            text += ". Sign in to it the way you created it, then link \(provider) (hearth link \(provider))."
        } else {
            text += "; it signs in with \(methods.joined(separator: ", ")). Sign in to it, then link \(provider):"
            for method in methods {
                let command = method == "password" ? "hearth signin password --email \(email)" : "hearth signin \(method)"
                text += "\n  \(command) && hearth link \(provider)"
            }
        }
    }
    return text
}

/// `hearth signin <provider>`: signs in through the client SDK, with the system browser and a loopback listener.
struct SignIn: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signin",
        abstract: "Sign in to a Hearth server through the client SDK (microsoft.com, yahoo.com, apple.com, google.com, oidc.<name>, password, email-link, passkey, or phone).")

    @OptionGroup var client: ClientOptions
    @OptionGroup var wait: BrowserWaitOptions
    @Argument(help: "microsoft.com, yahoo.com, apple.com, google.com, oidc.<name>, password, email-link, passkey, or phone.")
    var providerId: String
    @Argument(help: "phone: the phone number, E.164 (+15555550100; spaces and dashes are fine).")
    var phoneNumber: String?
    @Option(help: "phone: the code from the SMS (without it you are asked for it on a terminal).")
    var code: String?
    @Option(name: .customLong("verification-id"), help: "phone: the verification id of a code sent earlier (printed when there was no terminal to ask for the code on); with --code, signs in without sending another SMS.")
    var verificationId: String?
    @Option(name: .customLong("recaptcha-token"), help: "phone: a reCAPTCHA token, when the project verifies apps before it sends an SMS.")
    var recaptchaToken: String?
    @Option(help: "An extra OAuth scope (repeatable).")
    var scope: [String] = []
    @Option(help: "A custom parameter k=v (repeatable), e.g. tenant=organizations or prompt=login.")
    var param: [String] = []
    @Option(help: "The email, for password sign-in (the password comes from HEARTH_PASSWORD or a prompt) and email-link sign-in.")
    var email: String?
    @Option(help: "email-link: the sign-in link from the email (without it, a link is sent and then asked for).")
    var link: String?
    @Option(name: .customLong("totp-code"), help: "The code of your authenticator app, when the account has a second factor (on a terminal you are asked for it).")
    var totpCode: String?
    @Option(name: .customLong("recovery-code"), help: "One of your recovery codes, in place of --totp-code (each works once).")
    var recoveryCode: String?
    @Option(name: .customLong("factor"), help: "Which second factor --totp-code is for (its name or id), when the account has several.")
    var factor: String?
    @Flag(name: .customLong("enroll"), help: "passkey: create a passkey for the account (signed in with --email and its password, else the signed-in user), instead of signing in with one.")
    var enroll = false
    @Option(name: .customLong("passkey-name"), help: "passkey --enroll: the passkey's name (default: hearth CLI).")
    var passkeyName: String?
    @Flag(name: .customLong("show-tokens"), help: "Print the ID and refresh tokens.")
    var showTokens = false

    func validate() throws {
        try checkProviderId(providerId, allowEmail: true)
        if enroll || passkeyName != nil, providerId != "passkey" { throw ValidationError("--enroll and --passkey-name belong to hearth signin passkey") }
        if providerId == "passkey", email != nil, !enroll { throw ValidationError("passkey sign-in needs no --email (the passkey names the account); --email goes with --enroll") }
        if let passkeyName, passkeyName.trimmingCharacters(in: .whitespaces).isEmpty || passkeyName.count > 100 {
            throw ValidationError("--passkey-name takes 1 to 100 characters")
        }
        if totpCode != nil, recoveryCode != nil { throw ValidationError("pass either --totp-code or --recovery-code, not both") }
        if let totpCode, !MultiFactorPrompt.isTOTPCode(totpCode) {
            throw ValidationError("--totp-code takes the 6 to 8 digits your authenticator app shows, got \(totpCode)")
        }
        if providerId == "password", email == nil { throw ValidationError("password sign-in needs --email") }
        if providerId == "email-link", email?.isEmpty != false { throw ValidationError("email-link sign-in needs --email") }
        if link != nil, providerId != "email-link" { throw ValidationError("--link belongs to email-link sign-in") }
        if providerId == "phone" {
            guard let phoneNumber, !phoneNumber.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ValidationError("phone sign-in needs the number: hearth signin phone +15555550100")
            }
            if let code, code.count != 6 || !code.allSatisfy({ $0.isASCII && $0.isNumber }) {
                throw ValidationError("--code takes the 6 digits of the SMS, got \(code)")
            }
            if verificationId != nil, code == nil { throw ValidationError("--verification-id goes with --code (the code of that SMS)") }
        } else {
            if phoneNumber != nil { throw ValidationError("unexpected argument \(phoneNumber!): only hearth signin phone takes a number") }
            if code != nil || verificationId != nil || recaptchaToken != nil {
                throw ValidationError("--code, --verification-id and --recaptcha-token belong to hearth signin phone")
            }
        }
    }

    func run() async throws {
        let target = try client.target()
        let auth = try client.auth(timeout: wait.timeout)
        do {
            let result: AuthDataResult
            do {
                guard let signedIn = try await firstFactor(auth, target: target) else { return }
                result = signedIn
            } catch let error as NSError where error.domain == AuthErrorDomain && error.code == AuthErrorCode.secondFactorRequired.rawValue {
                guard let resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver else { throw error }
                let prompt = MultiFactorPrompt(totpCode: totpCode, recoveryCode: recoveryCode, factor: factor)
                result = try await prompt.resolve(resolver)
            }
            target.save()
            print(try await describe(result.user, showTokens: showTokens))
        } catch let error as ValidationError {
            throw error
        } catch {
            progress(explain(error, providerId: providerId == "passkey" && enroll ? "password" : providerId, server: target.server, email: email))
            throw ExitCode(1)
        }
    }

    /// The first factor: password, email link or a provider's web sign-in (nil: nothing more to do now).
    func firstFactor(_ auth: Auth, target: RememberedServer) async throws -> AuthDataResult? {
        if providerId == "password" {
            return try await auth.signIn(withEmail: email!, password: readPassword())
        }
        if providerId == "email-link" {
            return try await signInWithEmailLink(auth, target: target)
        }
        if providerId == "passkey" {
            return try await passkey(auth, target: target)
        }
        if providerId == "phone" {
            return try await signInWithPhone(auth)
        }
        try await Preflight.check(target, providerId: providerId)
        let provider = try makeProvider(providerId, auth: auth, scopes: scope, parameters: param)
        progress("Opening the browser for \(providerId) at \(target.server)…")
        let waiting = showWaiting(for: providerId, seconds: wait.timeout ?? 300)
        defer { waiting.cancel() }
        // One call: the browser's page then says how it ended (signed in, account exists, refused).
        return try await auth.signIn(with: provider, uiDelegate: nil)
    }
}

extension SignIn {
    /// `hearth signin passkey`: sign in with a passkey, or (`--enroll`) create one for the account.
    func passkey(_ auth: Auth, target: RememberedServer) async throws -> AuthDataResult {
        let flow = PasskeyCLIFlow(target: target, auth: auth, timeout: wait.timeout ?? 300)
        guard enroll else { return try await flow.signIn() }
        let user: User
        if let email {
            do {
                user = try await auth.signIn(withEmail: email, password: readPassword()).user
            } catch let error as NSError where error.domain == AuthErrorDomain && error.code == AuthErrorCode.secondFactorRequired.rawValue {
                guard let resolver = error.userInfo[AuthErrorUserInfoMultiFactorResolverKey] as? MultiFactorResolver else { throw error }
                user = try await MultiFactorPrompt(totpCode: totpCode, recoveryCode: recoveryCode, factor: factor).resolve(resolver).user
            }
        } else {
            guard let current = auth.currentUser else {
                throw CLIError("nobody is signed in to create a passkey for: pass --email (and the password), or sign in first")
            }
            user = current
        }
        let result = try await flow.enroll(user, name: passkeyName ?? "hearth CLI")
        progress("Passkey \"\(passkeyName ?? "hearth CLI")\" created.")
        return result
    }
}

/// The second factor of `hearth signin`: `--totp-code` / `--recovery-code`, else asked on the terminal.
struct MultiFactorPrompt {
    var totpCode: String?
    var recoveryCode: String?
    var factor: String?

    /// 6 to 8 ASCII digits (spaces, as some apps group them, are dropped first).
    static func isTOTPCode(_ text: String) -> Bool {
        let digits = text.replacingOccurrences(of: " ", with: "")
        return (6...8).contains(digits.count) && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The factors as a list: `  1. Phone (totp, enrolled 2026-11-24, id …)`.
    static func describe(_ hints: [MultiFactorInfo]) -> String {
        hints.enumerated().map { index, hint in
            let name = hint.displayName.map { $0.isEmpty ? "(no name)" : $0 } ?? "(no name)"
            let date = hint.enrollmentDate.timeIntervalSince1970 > 0 ? ", enrolled \(hint.enrollmentDate.formatted(.iso8601.year().month().day()))" : ""
            return "  \(index + 1). \(name) (\(hint.factorID)\(date), id \(hint.uid))"
        }.joined(separator: "\n")
    }

    func resolve(_ resolver: MultiFactorResolver) async throws -> AuthDataResult {
        let totpFactors = resolver.hints.filter { $0.factorID == TOTPMultiFactorGenerator.factorID }
        if let recoveryCode {
            return try await resolver.resolveSignIn(with: RecoveryCodeMultiFactorGenerator.assertionForSignIn(withRecoveryCode: recoveryCode))
        }
        if let totpCode {
            let chosen = try choose(from: totpFactors, interactive: false)
            return try await resolver.resolveSignIn(with: TOTPMultiFactorGenerator.assertionForSignIn(
                withEnrollmentID: chosen.uid, oneTimePassword: totpCode.replacingOccurrences(of: " ", with: "")))
        }
        guard isatty(STDIN_FILENO) != 0 else {
            throw CLIError("this account has a second factor: pass --totp-code <the code of your authenticator app> (or --recovery-code <a recovery code>), or run hearth signin on a terminal to be asked for it")
        }
        progress("This account has a second factor:\n" + Self.describe(resolver.hints))
        let phoneFactors = resolver.hints.compactMap { $0 as? PhoneMultiFactorInfo }
        let chosen = try choose(from: totpFactors + phoneFactors, interactive: true)
        if let phone = chosen as? PhoneMultiFactorInfo { return try await resolveWithSMS(resolver, phone) }
        // A wrong code leaves the pending sign-in usable (until it expires): three tries.
        for attempt in 1...3 {
            progress("Code from your authenticator app for \(chosen.displayName ?? chosen.uid) (or a recovery code):")
            let typed = (readLine(strippingNewline: true) ?? "").trimmingCharacters(in: .whitespaces)
            guard !typed.isEmpty else { throw CLIError("no code given: run hearth signin again, or pass --totp-code or --recovery-code") }
            let assertion: MultiFactorAssertion = Self.isTOTPCode(typed)
                ? TOTPMultiFactorGenerator.assertionForSignIn(withEnrollmentID: chosen.uid, oneTimePassword: typed.replacingOccurrences(of: " ", with: ""))
                : RecoveryCodeMultiFactorGenerator.assertionForSignIn(withRecoveryCode: typed)
            do {
                return try await resolver.resolveSignIn(with: assertion)
            } catch let error as NSError where error.domain == AuthErrorDomain && error.code == AuthErrorCode.invalidVerificationCode.rawValue && attempt < 3 {
                progress("That code was not accepted (wrong, too old, or used already). Try again with the current code.")
            }
        }
        throw CLIError("the code was not accepted: run hearth signin again")
    }

    /// An SMS second factor, on a terminal: a code sent to the factor's number, typed (three tries).
    func resolveWithSMS(_ resolver: MultiFactorResolver, _ factor: PhoneMultiFactorInfo) async throws -> AuthDataResult {
        let provider = PhoneAuthProvider.provider(auth: resolver.auth)
        let verificationID = try await provider.verifyPhoneNumber(with: factor, uiDelegate: nil, multiFactorSession: resolver.session)
        for attempt in 1...3 {
            progress("Code from the SMS sent to \(factor.phoneNumber) (6 digits):")
            let typed = (readLine(strippingNewline: true) ?? "").filter { !$0.isWhitespace }
            guard !typed.isEmpty else { throw CLIError("no code given: run hearth signin again") }
            let assertion = PhoneMultiFactorGenerator.assertion(with: provider.credential(withVerificationID: verificationID, verificationCode: typed))
            do {
                return try await resolver.resolveSignIn(with: assertion)
            } catch let error as NSError where error.domain == AuthErrorDomain && error.code == AuthErrorCode.invalidVerificationCode.rawValue && attempt < 3 {
                progress("That code was not accepted. Type the 6 digits of the SMS.")
            }
        }
        throw CLIError("the code was not accepted: run hearth signin again")
    }

    /// The factor the code is for: `--factor` (name or id), the only one, or asked for on a terminal.
    func choose(from factors: [MultiFactorInfo], interactive: Bool) throws -> MultiFactorInfo {
        guard !factors.isEmpty else {
            throw CLIError("this account's second factors are not TOTP factors, which --totp-code cannot complete: run hearth signin on a terminal (an SMS factor sends a code), sign in with --recovery-code, or ask an administrator to remove them (hearth users mfa remove)")
        }
        if let factor {
            guard let match = factors.first(where: { $0.uid == factor }) ?? factors.first(where: { $0.displayName == factor }) else {
                throw CLIError("no second factor named \(factor); this account has:\n" + Self.describe(factors))
            }
            return match
        }
        if factors.count == 1 { return factors[0] }
        guard interactive else {
            throw CLIError("this account has \(factors.count) TOTP factors: pass --factor with the name or id of the one the code is for:\n" + Self.describe(factors))
        }
        progress("Which factor will you use? Type its number (1–\(factors.count)):")
        guard let line = readLine(strippingNewline: true), let number = Int(line.trimmingCharacters(in: .whitespaces)),
              factors.indices.contains(number - 1) else {
            throw CLIError("no such factor: run hearth signin again and type a number from the list, or pass --factor")
        }
        return factors[number - 1]
    }
}

extension SignIn {
    /// `signin phone <number>`: sends a code by SMS and signs in with it — the code from `--code`, else typed on the
    /// terminal (three tries); without a terminal, prints the verification id and the command that finishes the
    /// sign-in (nil: nothing more to do now). `--verification-id` with `--code` finishes a code sent earlier.
    func signInWithPhone(_ auth: Auth) async throws -> AuthDataResult? {
        let number = phoneNumber!
        let provider = PhoneAuthProvider.provider(auth: auth)
        let verificationID: String
        if let verificationId {
            verificationID = verificationId
        } else {
            verificationID = try await provider.verifyPhoneNumber(number, recaptchaToken: recaptchaToken)
            progress("Sent a code by SMS to \(number).")
        }
        if let code {
            return try await auth.signIn(with: provider.credential(withVerificationID: verificationID, verificationCode: code))
        }
        guard isatty(STDIN_FILENO) != 0 else {
            print("Sent a code by SMS to \(number).")
            progress("Finish within 5 minutes: hearth signin phone \(number) --verification-id \(verificationID) --code <the 6 digits>")
            return nil
        }
        for attempt in 1...3 {
            progress("Code from the SMS (6 digits):")
            let typed = (readLine(strippingNewline: true) ?? "").filter { !$0.isWhitespace }
            guard !typed.isEmpty else { throw CLIError("no code given: run hearth signin phone \(number) again") }
            do {
                return try await auth.signIn(with: provider.credential(withVerificationID: verificationID, verificationCode: typed))
            } catch let error as NSError where error.domain == AuthErrorDomain && error.code == AuthErrorCode.invalidVerificationCode.rawValue && attempt < 3 {
                progress("That code was not accepted. Type the 6 digits of the latest SMS.")
            }
        }
        throw CLIError("the code was not accepted: run hearth signin phone \(number) again for a new one")
    }

    /// `signin email-link`: with `--link`, signs in with it; without, sends a sign-in link whose continue URL is the
    /// server itself and reads the link from the terminal (nil when there is none to read from: the link was sent,
    /// the next step is `--link`).
    func signInWithEmailLink(_ auth: Auth, target: RememberedServer) async throws -> AuthDataResult? {
        let email = email!
        var pasted = link
        if pasted == nil {
            let settings = ActionCodeSettings()
            settings.url = URL(string: target.server + "/")
            settings.handleCodeInApp = true
            try await auth.sendSignInLink(toEmail: email, actionCodeSettings: settings)
            guard isatty(STDIN_FILENO) != 0 else {
                print("Sent a sign-in link to \(email).")
                progress("Open the email, then run: hearth signin email-link --email \(email) --link '<the link>'")
                return nil
            }
            progress("Sent a sign-in link to \(email). Paste the link from the email here and press Enter (Ctrl-C to cancel):")
            pasted = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let link = pasted, !link.isEmpty else {
            throw CLIError("no link given: paste the link from the email, or run again with --link '<the link>'")
        }
        guard auth.isSignIn(withEmailLink: link) else {
            throw CLIError("that is not an email sign-in link (it needs mode=signIn and an oobCode): copy the whole link from the email")
        }
        return try await auth.signIn(withEmail: email, link: link)
    }
}

func makeProvider(_ providerId: String, auth: Auth, scopes: [String], parameters: [String]) throws -> OAuthProvider {
    let provider = OAuthProvider(providerID: providerId, auth: auth)
    if !scopes.isEmpty { provider.scopes = scopes }
    var custom: [String: String] = [:]
    for pair in parameters {
        let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty else { throw ValidationError("--param takes key=value, got \(pair)") }
        custom[parts[0]] = parts[1]
    }
    if !custom.isEmpty { provider.customParameters = custom }
    return provider
}

/// The password: `HEARTH_PASSWORD`, else asked on the terminal. Without either, a plain error that says what to do.
func readPassword() throws -> String {
    if let password = ProcessInfo.processInfo.environment["HEARTH_PASSWORD"] { return password }
    #if canImport(Glibc)
    guard isatty(STDIN_FILENO) != 0 else {
        throw CLIError("no password: set HEARTH_PASSWORD, or run the command on a terminal to be asked for it")
    }
    if let raw = getpass("Password: ") {
        let password = String(cString: raw)
        if !password.isEmpty { return password }
    }
    #endif
    throw CLIError("no password given: type it when asked, or set HEARTH_PASSWORD")
}

/// `hearth link <provider>`: links a provider to the signed-in user.
struct Link: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Link a provider to the signed-in user.")
    @OptionGroup var client: ClientOptions
    @OptionGroup var wait: BrowserWaitOptions
    @Argument(help: "The provider to link: microsoft.com, yahoo.com, apple.com, google.com or oidc.<name>.")
    var providerId: String
    @Option(help: "An extra OAuth scope (repeatable).")
    var scope: [String] = []
    @Option(help: "A custom parameter k=v (repeatable), e.g. tenant=organizations.")
    var param: [String] = []
    @Flag(name: .customLong("show-tokens"), help: "Print the ID and refresh tokens.")
    var showTokens = false

    func validate() throws {
        try checkProviderId(providerId, allowEmail: false)
    }

    func run() async throws {
        let target = try client.target()
        let auth = try client.auth(timeout: wait.timeout)
        guard let user = auth.currentUser else {
            progress("Not signed in to \(target.server). Run hearth signin first.")
            throw ExitCode(1)
        }
        do {
            try await Preflight.check(target, providerId: providerId)
            let provider = try makeProvider(providerId, auth: auth, scopes: scope, parameters: param)
            progress("Opening the browser for \(providerId) at \(target.server)…")
            let waiting = showWaiting(for: providerId, seconds: wait.timeout ?? 300)
            defer { waiting.cancel() }
            let result = try await user.link(with: provider, uiDelegate: nil)
            print("Linked \(providerId).")
            print(try await describe(result.user, showTokens: showTokens))
        } catch {
            progress(explain(error, providerId: providerId, server: target.server))
            throw ExitCode(1)
        }
    }
}

/// `hearth whoami`.
struct WhoAmI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "whoami", abstract: "Show the signed-in user (exits 1 when no one is signed in).")
    @OptionGroup var client: ClientOptions
    @Flag(name: .customLong("show-tokens"), help: "Print the ID and refresh tokens.")
    var showTokens = false

    func run() async throws {
        let target = try client.target()
        let auth = try client.auth()
        guard let user = auth.currentUser else {
            // A script asking "who am I" learns it from the status too (issue 35: it exited 0).
            print("Not signed in to \(target.server).")
            progress("Sign in with hearth signin <provider> (microsoft.com, google.com, password, passkey, …).")
            throw ExitCode(1)
        }
        do {
            try await user.reload()
            print(try await describe(user, showTokens: showTokens))
        } catch {
            progress(explain(error, server: target.server))
            throw ExitCode(1)
        }
    }
}

/// `hearth signout`.
struct SignOut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "signout", abstract: "Sign out (forget the stored user; the server stays remembered).")
    @OptionGroup var client: ClientOptions

    func run() async throws {
        let target = try client.target()
        let auth = try client.auth()
        let uid = auth.currentUser?.uid
        try auth.signOut()
        // The server stays remembered: whoami, signin and the account-exists hints keep talking to it.
        print(uid.map { "Signed out \($0) from \(target.server)." } ?? "Not signed in to \(target.server).")
    }
}
