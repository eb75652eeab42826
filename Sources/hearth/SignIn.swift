import ArgumentParser
import Foundation
import HearthAuth
#if canImport(Glibc)
import Glibc
#endif

/// Options that say which Hearth server and project the client commands talk to.
struct ClientOptions: ParsableArguments {
    @Option(help: "The Hearth server (default http://127.0.0.1:9099, env HEARTH_SERVER_URL).")
    var server: String?
    @Option(name: .customLong("api-key"), help: "The project's API key (default demo-key, env HEARTH_API_KEY).")
    var apiKey: String?
    @Option(name: .customLong("project-id"), help: "The project id (default demo-hearth, env HEARTH_PROJECT_ID).")
    var projectId: String?
    @Option(name: .customLong("app-id"), help: "The registered desktop app id (default hearth-cli, env HEARTH_APP_ID).")
    var appId: String?

    func auth() throws -> Auth {
        let environment = ProcessInfo.processInfo.environment
        let serverText = server ?? environment["HEARTH_SERVER_URL"] ?? "http://127.0.0.1:9099"
        guard let url = URL(string: serverText), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw ValidationError("\(serverText) is not an http(s) URL")
        }
        return Auth(configuration: AuthConfiguration(
            serverURL: url, apiKey: apiKey ?? environment["HEARTH_API_KEY"] ?? "demo-key",
            projectId: projectId ?? environment["HEARTH_PROJECT_ID"] ?? "demo-hearth",
            appId: appId ?? environment["HEARTH_APP_ID"] ?? "hearth-cli", bundleId: nil, persistence: FileUserPersistence()))
    }
}

/// Prints who is signed in.
func describe(_ user: User, showTokens: Bool) async throws -> String {
    let token = try await user.getIDTokenResult()
    let providers = user.providerData.map(\.providerID)
    var lines = [
        "Signed in as \(user.uid)",
        "  provider:  \(token.signInProvider)",
        "  email:     \(user.email ?? "-")\(user.email == nil ? "" : user.emailVerified ? " (verified)" : " (not verified)")",
        "  name:      \(user.displayName ?? "-")",
        "  linked:    \(providers.isEmpty ? "-" : providers.joined(separator: ", "))",
    ]
    for info in user.providerData where info.providerID != "password" {
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

/// Turns SDK errors into a readable message.
func explain(_ error: any Error) -> String {
    let error = error as NSError
    guard error.domain == AuthErrorDomain, let code = AuthErrorCode(rawValue: error.code) else { return error.localizedDescription }
    var text = "\(code) (\(code.rawValue)): \(error.localizedDescription)"
    if code == .accountExistsWithDifferentCredential, let email = error.userInfo[AuthErrorUserInfoEmailKey] as? String {
        text += "\nAn account with \(email) already exists. Sign in to it (hearth signin password --email \(email)), then link this provider (hearth link <provider>)."
    }
    return text
}

/// `hearth signin <provider>`: signs in through the client SDK, with the system browser and a loopback listener.
struct SignIn: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signin",
        abstract: "Sign in to a Hearth server through the client SDK (microsoft.com, yahoo.com, oidc.<name>, or password).")

    @OptionGroup var client: ClientOptions
    @Argument(help: "microsoft.com, yahoo.com, oidc.<name>, or password.")
    var providerId: String
    @Option(help: "An extra OAuth scope (repeatable).")
    var scope: [String] = []
    @Option(help: "A custom parameter k=v (repeatable), e.g. tenant=organizations or prompt=login.")
    var param: [String] = []
    @Option(help: "The email, for password sign-in (the password comes from HEARTH_PASSWORD or a prompt).")
    var email: String?
    @Flag(name: .customLong("show-tokens"), help: "Print the ID and refresh tokens.")
    var showTokens = false

    func run() async throws {
        let auth = try client.auth()
        do {
            let result: AuthDataResult
            if providerId == "password" {
                guard let email else { throw ValidationError("password sign-in needs --email") }
                result = try await auth.signIn(withEmail: email, password: readPassword())
            } else {
                let provider = try makeProvider(providerId, auth: auth, scopes: scope, parameters: param)
                progress("Opening browser… waiting for sign-in, Ctrl-C to cancel")
                let credential = try await provider.credential(with: nil)
                result = try await auth.signIn(with: credential)
            }
            print(try await describe(result.user, showTokens: showTokens))
        } catch let error as ValidationError {
            throw error
        } catch {
            progress(explain(error))
            throw ExitCode(1)
        }
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

func readPassword() throws -> String {
    if let password = ProcessInfo.processInfo.environment["HEARTH_PASSWORD"] { return password }
    #if canImport(Glibc)
    if let raw = getpass("Password: ") { return String(cString: raw) }
    #endif
    guard let line = readLine(strippingNewline: true) else { throw ValidationError("no password given") }
    return line
}

/// `hearth link <provider>`: links a provider to the signed-in user.
struct Link: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Link a provider to the signed-in user.")
    @OptionGroup var client: ClientOptions
    @Argument var providerId: String
    @Option var scope: [String] = []
    @Option var param: [String] = []
    @Flag(name: .customLong("show-tokens")) var showTokens = false

    func run() async throws {
        let auth = try client.auth()
        guard let user = auth.currentUser else {
            progress("Not signed in. Run hearth signin first.")
            throw ExitCode(1)
        }
        do {
            let provider = try makeProvider(providerId, auth: auth, scopes: scope, parameters: param)
            progress("Opening browser… waiting for sign-in, Ctrl-C to cancel")
            let result = try await user.link(with: try await provider.credential(with: nil))
            print(try await describe(result.user, showTokens: showTokens))
        } catch {
            progress(explain(error))
            throw ExitCode(1)
        }
    }
}

/// `hearth whoami`.
struct WhoAmI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "whoami", abstract: "Show the signed-in user.")
    @OptionGroup var client: ClientOptions
    @Flag(name: .customLong("show-tokens")) var showTokens = false

    func run() async throws {
        let auth = try client.auth()
        guard let user = auth.currentUser else {
            print("Not signed in.")
            return
        }
        do {
            try await user.reload()
            print(try await describe(user, showTokens: showTokens))
        } catch {
            progress(explain(error))
            throw ExitCode(1)
        }
    }
}

/// `hearth signout`.
struct SignOut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "signout", abstract: "Sign out (forget the stored user).")
    @OptionGroup var client: ClientOptions

    func run() async throws {
        let auth = try client.auth()
        let uid = auth.currentUser?.uid
        try auth.signOut()
        print(uid.map { "Signed out \($0)." } ?? "Not signed in.")
    }
}
