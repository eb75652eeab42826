import Foundation
import HearthCore
import HearthWire

/// Google sign-in settings for the relying party: Firebase's `defaultSupportedIdpConfigs/google.com` client id,
/// the apps' native (iOS/Android) client ids, Hearth's hosted-domain allow-list, and `endpointBase`, which moves
/// every Google URL and the expected issuer.
public struct GoogleSignInSettings: Sendable, Equatable {
    /// Google's issuers: the URL form and the bare host form both appear in Google's ID tokens.
    public static let googleIssuers = ["https://accounts.google.com", "accounts.google.com"]

    /// The web client id (`….apps.googleusercontent.com`).
    public var clientId: String
    /// The apps' own client ids (iOS, Android): accepted audiences and authorized parties of native ID tokens.
    public var nativeClientIds: [String]
    /// Google Workspace domains whose accounts may sign in (lower case); empty: every account.
    public var allowedHostedDomains: [String]
    /// Replaces Google's hosts in every URL and in the expected issuer (dev and test providers).
    public var endpointBase: String?
    /// The discovery document read at ``discoveryURL`` (``RelyingParty/resolve(_:entraTenantOrHostedDomain:)`` reads it when
    /// `endpointBase` is set, so any OpenID provider can stand in for Google): its endpoints and its issuer then
    /// replace the fixed ones. Nil: Google's fixed endpoints (under `endpointBase` when set).
    public var discovered: DiscoveryDocument?

    public init(clientId: String, nativeClientIds: [String] = [], allowedHostedDomains: [String] = [], endpointBase: String? = nil,
                discovered: DiscoveryDocument? = nil) {
        self.clientId = clientId
        self.nativeClientIds = nativeClientIds
        self.allowedHostedDomains = allowedHostedDomains.map { $0.lowercased() }
        self.endpointBase = endpointBase
        self.discovered = discovered
    }

    var base: String? { endpointBase.map(RelyingParty.trimmed) }
    /// The accepted `iss` values: Google's two forms, the base, or the discovered issuer (which equals the base).
    public var issuers: [String] { discovered.map { [$0.issuer] } ?? base.map { [$0] } ?? Self.googleIssuers }
    /// The discovery document (`<issuer>/.well-known/openid-configuration`).
    public var discoveryURL: String { (base ?? Self.googleIssuers[0]) + "/.well-known/openid-configuration" }
    public var authorizationEndpoint: String {
        discovered?.authorizationEndpoint ?? (base ?? "https://accounts.google.com") + "/o/oauth2/v2/auth"
    }
    public var tokenEndpoint: String { discovered?.tokenEndpoint ?? base.map { $0 + "/token" } ?? "https://oauth2.googleapis.com/token" }
    public var jwksURI: String { discovered?.jwksURI ?? (base ?? "https://www.googleapis.com") + "/oauth2/v3/certs" }
    public var userinfoEndpoint: String {
        discovered?.userinfoEndpoint ?? (base ?? "https://openidconnect.googleapis.com") + "/v1/userinfo"
    }
    /// Google's revoke endpoint (the discovered `revocation_endpoint` when there is one).
    public var revocationEndpoint: String {
        discovered?.revocationEndpoint ?? base.map { $0 + "/revoke" } ?? "https://oauth2.googleapis.com/revoke"
    }

    /// The accepted audiences: the web client id, then the native ones.
    public var audiences: [String] {
        [clientId] + nativeClientIds.filter { !$0.isEmpty && $0 != clientId }
    }

    /// The domains an administrator may write: lower-cased DNS names, duplicates removed. `*` is refused (an empty
    /// list means every account).
    public static func normalizeHostedDomains(_ entries: [String]) throws -> [String] {
        var result: [String] = []
        for raw in entries {
            let entry = raw.trimmingCharacters(in: .whitespaces).lowercased()
            guard !entry.isEmpty else { continue }
            let labels = entry.split(separator: ".", omittingEmptySubsequences: false)
            let valid = entry.count <= 253 && labels.count >= 2 && labels.allSatisfy { label in
                !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                    && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            }
            guard valid else {
                throw RelyingPartyError(.configuration, "'\(raw)' is not a Google Workspace domain (example.com); an empty list allows every account")
            }
            if !result.contains(entry) { result.append(entry) }
        }
        return result
    }

    /// The `hd` authorization parameter for a sign-in whose app asked for `requested` (nil, `*` or a domain): the
    /// app may narrow the allow-list, never widen it. A domain outside a non-empty list is refused before the user
    /// sees Google. Google treats `hd` as a hint only; ``RelyingParty/validateGoogleIDToken(_:settings:nonce:requestedHostedDomain:)``
    /// checks the token's `hd` claim.
    public func narrowedHostedDomain(requested: String?) throws -> String? {
        let requested = requested.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.flatMap { $0.isEmpty ? nil : $0 }
        guard !allowedHostedDomains.isEmpty else { return requested }
        switch requested {
        case nil, "*"?:
            return allowedHostedDomains.count == 1 ? allowedHostedDomains[0] : "*"
        case let domain?:
            guard allowedHostedDomains.contains(domain) else {
                throw RelyingPartyError(.hostedDomainNotAllowed, "accounts of \(domain) are not allowed to sign in to this app")
            }
            return domain
        }
    }
}

extension RelyingParty {
    /// Validates a Google ID token — from the code exchange or natively obtained (`GoogleAuthProvider.credential`) —
    /// and returns its identity: issuer `https://accounts.google.com` or `accounts.google.com`; audience the web
    /// client id or a native one; `azp`, when present, one of those too; the nonce as `nonce` says; the `hd` claim
    /// within the hosted-domain allow-list and equal to the domain the app asked for (`requestedHostedDomain`,
    /// `*` meaning any Workspace domain). The email is verified when Google says so (`email_verified`).
    public func validateGoogleIDToken(_ idToken: String, settings: GoogleSignInSettings, nonce: IDTokenNonce,
                                      requestedHostedDomain: String? = nil) async throws -> FederatedSignIn {
        let audiences = settings.audiences
        let claims = try await validator.validate(idToken, jwksURI: settings.jwksURI, issuer: .oneOf(settings.issuers),
                                                  audiences: audiences, nonce: nonce.rule)
        if let azp = claims["azp"]?.stringValue, !audiences.contains(azp) {
            throw RelyingPartyError.idToken("the ID token's authorized party is another client")
        }
        let hostedDomain = claims["hd"]?.stringValue?.lowercased()
        if !settings.allowedHostedDomains.isEmpty {
            guard let hostedDomain, settings.allowedHostedDomains.contains(hostedDomain) else {
                throw RelyingPartyError(.hostedDomainNotAllowed, hostedDomain.map { "accounts of \($0) are not allowed to sign in to this app" }
                    ?? "this app accepts Google Workspace accounts of its allowed domains only")
            }
        }
        if let requested = requestedHostedDomain?.lowercased(), !requested.isEmpty {
            guard let hostedDomain, requested == "*" || requested == hostedDomain else {
                throw RelyingPartyError(.hostedDomainNotAllowed, "the account is not one of the Google Workspace domain the sign-in asked for")
            }
        }
        guard let sub = claims["sub"]?.stringValue else { throw RelyingPartyError.idToken("the ID token has no subject") }
        let email = claims["email"]?.stringValue.flatMap(EmailAddress.normalize)
        func text(_ key: String) -> String? { claims[key]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } }
        var signIn = FederatedSignIn(
            identity: ProviderIdentity(providerId: "google.com", federatedId: sub, email: email, displayName: text("name"), photoUrl: text("picture")),
            emailVerified: email != nil && Self.claimIsTrue(claims["email_verified"]),
            firstName: text("given_name"), lastName: text("family_name"), rawUserInfo: claims)
        signIn.oauthIdToken = idToken
        if case .exact = nonce {} else { signIn.tokenUse = Self.tokenUse(idToken, claims: claims) }
        return signIn
    }
}
