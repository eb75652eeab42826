import Foundation
import HearthCore
import HearthWire

/// Sign in with Apple's settings for the relying party: Firebase's `appleSignInConfig` (bundle ids, and the code
/// flow's services id) plus Hearth's `endpointBase`, which moves every Apple URL and the expected issuer.
public struct AppleSignInSettings: Sendable, Equatable {
    /// Apple's base URL and ID-token issuer.
    public static let appleBase = "https://appleid.apple.com"
    /// The domain of Apple's private-relay ("Hide My Email") addresses.
    public static let privateRelayDomain = "privaterelay.appleid.com"

    /// The services id: the web flow's `client_id` (and a valid ID-token audience).
    public var servicesId: String?
    /// The iOS/macOS apps' bundle ids: the audiences of natively obtained ID tokens.
    public var bundleIds: [String]
    /// Replaces `https://appleid.apple.com` in every URL and in the expected issuer (dev and test providers).
    public var endpointBase: String?

    public init(servicesId: String?, bundleIds: [String] = [], endpointBase: String? = nil) {
        self.servicesId = servicesId
        self.bundleIds = bundleIds
        self.endpointBase = endpointBase
    }

    /// The base (Apple's, or `endpointBase` without a trailing slash).
    public var base: String { RelyingParty.trimmed(endpointBase ?? Self.appleBase) }
    /// The ID token's expected `iss`.
    public var issuer: String { base }
    /// `…/auth/authorize` (with `response_mode=form_post` when `name` or `email` is asked for).
    public var authorizationEndpoint: String { base + "/auth/authorize" }
    /// `…/auth/token` (code exchange and refresh, with the minted ES256 client secret).
    public var tokenEndpoint: String { base + "/auth/token" }
    /// `…/auth/keys`: Apple's JWKS.
    public var jwksURI: String { base + "/auth/keys" }
    /// `…/auth/revoke` (account deletion).
    public var revocationEndpoint: String { base + "/auth/revoke" }
    /// The audience of Apple's client secrets: Apple's URL, or the base standing in for it.
    public var clientSecretAudience: String { base }

    /// The accepted ID-token audiences: the bundle ids, then the services id.
    public var audiences: [String] {
        var list = bundleIds.filter { !$0.isEmpty }
        if let servicesId, !servicesId.isEmpty, !list.contains(servicesId) { list.append(servicesId) }
        return list
    }
}

/// How an Apple or Google ID token's `nonce` is checked.
public enum IDTokenNonce: Sendable, Equatable {
    /// Hearth's own code flow: the token's nonce must be the one Hearth sent.
    case exact(String)
    /// A natively obtained token: the token's nonce must be the SHA-256 (lower-case hex) of this raw nonce, which
    /// the app sent beside the token.
    case sha256OfRaw(String)
    /// A natively obtained token sent without a raw nonce: accepted only when the token carries no nonce (never
    /// on Apple's native path, which requires one).
    case none
    /// A token Hearth got from Apple's token endpoint for a code the app obtained natively (revocation): its
    /// nonce belongs to the app's sign-in and is not checked; the token only names whose grant the code was.
    case fromTokenEndpoint

    var rule: NonceRule {
        switch self {
        case .exact(let nonce): .exact(nonce)
        case .sha256OfRaw(let raw): .rawNonce(raw)
        case .none: .rawNonce(nil)
        case .fromTokenEndpoint: .notChecked
        }
    }
}

/// Apple's `user` form field (posted to the redirect URI with the code on the first authorization only):
/// `{"name":{"firstName":"…","lastName":"…"},"email":"…"}`.
public struct AppleUserField: Sendable, Equatable {
    public var firstName: String?
    public var lastName: String?
    public var email: String?

    /// "First Last", or whichever part there is; nil without a name.
    public var displayName: String? {
        let parts = [firstName, lastName].compactMap { $0 }.filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// Parses the field; nil when it is not Apple's JSON shape. Names are trimmed and cut to 256 characters.
    public static func parse(_ text: String?) -> AppleUserField? {
        guard let text, text.utf8.count <= 8192,
              case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        else { return nil }
        func clean(_ value: JSONValue?) -> String? {
            guard let raw = value?.stringValue else { return nil }
            let trimmed = String(raw.trimmingCharacters(in: .whitespacesAndNewlines).prefix(256))
            return trimmed.isEmpty ? nil : trimmed
        }
        let name = object["name"]?.objectValue
        return AppleUserField(firstName: clean(name?["firstName"]), lastName: clean(name?["lastName"]), email: clean(object["email"]))
    }
}

extension RelyingParty {
    /// Claims that providers send as booleans or as the strings "true"/"false" (Apple's `email_verified` and
    /// `is_private_email`).
    static func claimIsTrue(_ value: JSONValue?) -> Bool {
        value == .bool(true) || value == .string("true")
    }

    /// Validates an Apple ID token — from the code exchange (`.exact` nonce) or natively obtained
    /// (`.sha256OfRaw`, required on that path) — and returns its identity: the federated id is `sub`; the email
    /// is verified when Apple says so (boolean or string); a private-relay address is verified but flagged
    /// (``FederatedSignIn/emailIsPrivateRelay``) so the account rules never link by it. Apple's ID token carries
    /// no name: the code flow's `user` field supplies it (``AppleUserField``).
    public func validateAppleIDToken(_ idToken: String, settings: AppleSignInSettings, nonce: IDTokenNonce) async throws -> FederatedSignIn {
        if case .none = nonce {
            throw RelyingPartyError(.nonce, "a Sign in with Apple ID token needs the raw nonce it was requested with (nonce in postBody; the token carries its SHA-256)")
        }
        if case .sha256OfRaw(let raw) = nonce, raw.isEmpty {
            throw RelyingPartyError(.nonce, "the raw nonce is empty")
        }
        let audiences = settings.audiences
        guard !audiences.isEmpty else {
            throw RelyingPartyError(.configuration, "Sign in with Apple has neither a services id nor a bundle id")
        }
        let claims = try await validator.validate(idToken, jwksURI: settings.jwksURI, issuer: .exact(settings.issuer),
                                                  audiences: audiences, nonce: nonce.rule)
        if case .sha256OfRaw = nonce, claims["nonce"]?.stringValue == nil {
            throw RelyingPartyError(.nonce, "the Sign in with Apple ID token carries no nonce")
        }
        guard let sub = claims["sub"]?.stringValue else { throw RelyingPartyError.idToken("the ID token has no subject") }
        let email = claims["email"]?.stringValue.flatMap(EmailAddress.normalize)
        let privateRelay = email.map { ProviderRules.domain(of: $0) == AppleSignInSettings.privateRelayDomain } ?? false
            || Self.claimIsTrue(claims["is_private_email"])
        var signIn = FederatedSignIn(
            identity: ProviderIdentity(providerId: "apple.com", federatedId: sub, email: email, displayName: nil, photoUrl: nil),
            emailVerified: email != nil && Self.claimIsTrue(claims["email_verified"]),
            rawUserInfo: claims)
        signIn.emailIsPrivateRelay = email != nil && privateRelay
        signIn.oauthIdToken = idToken
        if case .sha256OfRaw = nonce { signIn.tokenUse = Self.tokenUse(idToken, claims: claims) }
        return signIn
    }
}
