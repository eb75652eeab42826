import Foundation
import HearthCore
import HearthDevIdP
import HearthServer
import HearthWire

extension HearthHarness {
    /// A `configure` closure that gives the server provider token vault keys (the text form, `id:base64` lines).
    public static func vault(_ lines: String...) -> @Sendable (inout HearthServerConfiguration) -> Void {
        let keys = try! ProviderTokenKeys.parse(lines.joined(separator: "\n"))
        return { $0.providerTokenKeys = keys }
    }

    /// An ID token obtained the way a native app does: the authorization code flow straight at the dev provider
    /// (its own login form), with the app's nonce, then the code redeemed at the provider's token endpoint.
    public func nativeProviderTokens(_ provider: DevIdentityProviders.Provider, email: String, nonce: String?, tenant: String = "common",
                                     scope: String = "openid email profile") async throws -> (idToken: String, accessToken: String) {
        let h = self
        guard let dev = h.devIdPs else { throw HarnessError("the harness runs no dev IdPs") }
        let client = provider == .microsoft ? dev.microsoftClient : dev.yahooClient
        let authorize = provider == .microsoft ? "\(dev.microsoftBase)/\(tenant)/oauth2/v2.0/authorize" : "\(dev.yahooBase)/oauth2/request_auth"
        let tokenURL = provider == .microsoft ? "\(dev.microsoftBase)/\(tenant)/oauth2/v2.0/token" : "\(dev.yahooBase)/oauth2/get_token"
        let redirect = h.baseURL + "/__/auth/handler"
        var query: [(String, String)] = [("client_id", client.id), ("redirect_uri", redirect), ("response_type", "code"),
                                         ("scope", scope), ("state", "native-state")]
        if let nonce { query.append(("nonce", nonce)) }
        let form = try await Browser.get(authorize + "?" + FormEncoding.encode(query))
        guard let requestId = HearthHarness.capture(#"name="request_id" value="([^"]+)""#, in: form.body) else { throw HarnessError("no login form: \(form.body.prefix(300))") }
        guard let action = HearthHarness.capture(#"action="([^"]+)""#, in: form.body) else { throw HarnessError("no form action") }
        let submitted = try await Browser.post(action.hasPrefix("http") ? action : h.baseURL + action,
                                               form: [("request_id", requestId), ("email", email), ("name", "Native User"), ("action", "login")])
        guard let code = submitted.location.flatMap({ Browser.query($0, "code") }) else { throw HarnessError("no code: \(submitted.body.prefix(300))") }
        let token = try await Browser.post(tokenURL, form: [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
                                                            ("client_id", client.id), ("client_secret", client.secret)])
        let parsed = try JSONSerialization.jsonObject(with: Data(token.body.utf8))
        guard let json = parsed as? [String: Any], let idToken = json["id_token"] as? String, let accessToken = json["access_token"] as? String else {
            throw HarnessError("no tokens: \(token.body.prefix(300))")
        }
        return (idToken, accessToken)
    }

    /// What Sign in with Apple gives an app on a device, obtained from the dev Apple provider: the authorization for
    /// the app's bundle id (`code id_token`, answered by `form_post`) with the SHA-256 (hex) of `rawNonce`. Returns
    /// the ID token, the authorization code (what `Auth.revokeToken(withAuthorizationCode:)` takes) and Apple's `user`
    /// field, which comes on a person's first authorization of the app only.
    public func nativeAppleTokens(email: String, name: String = "", rawNonce: String, hideEmail: Bool = false,
                                  bundleId: String? = nil) async throws -> (idToken: String, authorizationCode: String, user: String?) {
        guard let dev = devIdPs else { throw HarnessError("the harness runs no dev IdPs") }
        let clientId = bundleId ?? dev.appleCredentials.bundleIds[0]
        let authorize = "\(dev.apple.base)/auth/authorize?" + FormEncoding.encode([
            ("client_id", clientId), ("redirect_uri", baseURL + "/__/auth/handler"), ("response_type", "code id_token"),
            ("response_mode", "form_post"), ("scope", "name email"), ("state", "native-state"), ("nonce", WireDigest.sha256Hex(rawNonce)),
        ])
        let form = try await Browser.get(authorize)
        guard let requestId = HearthHarness.capture(#"name="request_id" value="([^"]+)""#, in: form.body) else { throw HarnessError("no login form: \(form.body.prefix(300))") }
        guard let action = HearthHarness.capture(#"action="([^"]+)""#, in: form.body) else { throw HarnessError("no form action") }
        var fields = [("request_id", requestId), ("email", email), ("name", name), ("action", "login")]
        if hideEmail { fields.append(("hide_email", "1")) }
        let answer = try await Browser.post(action.hasPrefix("http") ? action : baseURL + action, form: fields)
        guard let posted = Browser.formPost(answer).map({ Dictionary($0.fields, uniquingKeysWith: { first, _ in first }) }),
              let idToken = posted["id_token"], let code = posted["code"]
        else { throw HarnessError("no form_post answer: \(answer.body.prefix(300))") }
        return (idToken, code, posted["user"])
    }

    /// What Google Sign-In gives an app on a device, obtained from the dev Google provider: the authorization code
    /// flow of the native (iOS) client with PKCE and the SHA-256 (hex) of `rawNonce` when given, then the code
    /// redeemed without a client secret.
    public func nativeGoogleTokens(email: String, name: String = "Native User", rawNonce: String? = nil) async throws -> (idToken: String, accessToken: String) {
        guard let dev = devIdPs else { throw HarnessError("the harness runs no dev IdPs") }
        let redirect = baseURL + "/__/auth/handler"
        let verifier = RandomID.token(byteCount: 32)
        var query = [("client_id", DevIdentityProviders.googleNativeClientId), ("redirect_uri", redirect), ("response_type", "code"),
                     ("scope", "openid email profile"), ("state", "native-state"),
                     ("code_challenge", WireDigest.pkceChallenge(verifier: verifier)), ("code_challenge_method", "S256")]
        if let rawNonce { query.append(("nonce", WireDigest.sha256Hex(rawNonce))) }
        let form = try await Browser.get("\(dev.google.base)/o/oauth2/v2/auth?" + FormEncoding.encode(query))
        guard let requestId = HearthHarness.capture(#"name="request_id" value="([^"]+)""#, in: form.body) else { throw HarnessError("no login form: \(form.body.prefix(300))") }
        guard let action = HearthHarness.capture(#"action="([^"]+)""#, in: form.body) else { throw HarnessError("no form action") }
        let submitted = try await Browser.post(action.hasPrefix("http") ? action : baseURL + action,
                                               form: [("request_id", requestId), ("email", email), ("name", name), ("action", "login")])
        guard let code = submitted.location.flatMap({ Browser.query($0, "code") }) else { throw HarnessError("no code: \(submitted.body.prefix(300))") }
        let token = try await Browser.post("\(dev.google.base)/token", form: [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect),
            ("client_id", DevIdentityProviders.googleNativeClientId), ("code_verifier", verifier)])
        let parsed = try JSONSerialization.jsonObject(with: Data(token.body.utf8))
        guard let json = parsed as? [String: Any], let idToken = json["id_token"] as? String, let accessToken = json["access_token"] as? String else {
            throw HarnessError("no tokens: \(token.body.prefix(300))")
        }
        return (idToken, accessToken)
    }
}
