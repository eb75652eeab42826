/// The host-relative paths Firebase clients use against an emulator host, and Hearth's key endpoints.
public enum WirePaths {
    /// Prefix of the v1 Identity Toolkit API.
    public static let identityToolkitV1 = "/identitytoolkit.googleapis.com/v1"
    /// Prefix of the legacy v3 relying-party API.
    public static let relyingPartyV3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"
    /// The secure token service's refresh endpoint.
    public static let secureToken = "/securetoken.googleapis.com/v1/token"
    /// The x509 certificate map (`kid` → PEM) of the ID-token signing keys.
    public static let x509Certificates = "/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
    /// The same keys as a JWK set.
    public static let jwks = "/www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"
    /// A short alias of the JWK set.
    public static let wellKnownJWKS = "/.well-known/jwks.json"

    /// Hearth's provider token vault: a fresh provider access token for the signed-in user (`POST`, the Hearth ID
    /// token as `Authorization: Bearer` or `idToken` in the body).
    public static let providerAccessToken = "/hearth/v1/providerAccessToken"

    /// The Auth emulator's dev mailbox: `GET` lists the codes sent, `DELETE` empties it.
    public static let emulatorOobCodes = "/emulator/v1/projects/{project}/oobCodes"
    /// The hosted email action handler (Firebase's `/__/auth/action`).
    public static let actionHandler = "/__/auth/action"
    /// The dev mailbox's page (`--dev` and demo projects).
    public static let devMail = "/__dev/mail"
    /// The Auth emulator's dev SMS sink: `GET` lists the codes sent, `DELETE` empties it.
    public static let emulatorVerificationCodes = "/emulator/v1/projects/{project}/verificationCodes"
    /// The dev SMS sink's page (`--dev` and demo projects).
    public static let devSms = "/__dev/sms"

    /// The v1 path of an `accounts:*` method, e.g. `accounts(“signUp”)`.
    public static func accounts(_ method: String) -> String { "\(identityToolkitV1)/accounts:\(method)" }
    /// The v3 path of a relying-party method, e.g. `v3(“verifyPassword”)`.
    public static func v3(_ method: String) -> String { "\(relyingPartyV3)/\(method)" }

    /// Prefix of the v2 Identity Toolkit API (project configuration, provider configurations).
    public static let identityToolkitV2 = "/identitytoolkit.googleapis.com/v2"
    /// The OAuth 2 token endpoint for service-account JWT-bearer grants (RFC 7523); a service-account file's
    /// `token_uri` is this path on the server's public URL.
    public static let oauth2Token = "/oauth2.googleapis.com/token"
    /// Session-cookie verification keys (x509 map by kid), where Google publishes them.
    public static let sessionCookieCertificates = "/www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys"
    /// Session-cookie verification keys as a JWK set.
    public static let sessionCookieJWKS = "/identitytoolkit.googleapis.com/v1/sessionCookiePublicKeys"

    /// The admin path of a project's `accounts` resource: `…/v1/projects/{p}/accounts[:method]`.
    public static func adminAccounts(projectId: String, _ method: String? = nil) -> String {
        "\(identityToolkitV1)/projects/\(projectId)/accounts" + (method.map { ":\($0)" } ?? "")
    }

    /// The v2 path of a project resource: `…/v2/projects/{p}/<resource>`.
    public static func v2Project(_ projectId: String, _ resource: String) -> String {
        "\(identityToolkitV2)/projects/\(projectId)/\(resource)"
    }
}
