import HearthWire

/// Why a federated sign-in failed. The message is safe to show: it never holds a code, token or secret.
public struct RelyingPartyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The failure classes; the server maps all of them to `INVALID_IDP_RESPONSE` with the message.
    public enum Kind: String, Sendable, Equatable {
        case discovery
        case tokenExchange
        case idToken
        case profile
        case configuration
        /// The token's Microsoft tenant (or the tenant the app asked for) is not on the administrator's allow-list.
        case entraTenantNotAllowed
        /// The token's Google hosted domain (`hd`), or the domain the app asked for, is not on the allow-list.
        case hostedDomainNotAllowed
        /// The provider refused a stored refresh token (`invalid_grant`): it is dead, a new sign-in is needed.
        case refreshRefused
        /// A native ID token's nonce is not the SHA-256 of the raw nonce the app sent.
        case nonce
    }

    public let kind: Kind
    public let message: String
    /// The provider's own answer, in its parts, when the provider refused (token endpoint errors).
    public let providerError: ProviderErrorInfo?

    public init(_ kind: Kind, _ message: String, providerError: ProviderErrorInfo? = nil) {
        self.kind = kind
        self.message = message
        self.providerError = providerError
    }

    public var description: String { message }

    /// A short, bounded reason for logs and metrics: the provider's OAuth error when it gave a known one,
    /// otherwise the failure class (`discovery`, `token_exchange`, `id_token`, `profile`, `configuration`,
    /// `tenant_not_allowed`, `hosted_domain_not_allowed`, `refresh_refused`, `nonce`).
    public var reason: String {
        if let providerError { return providerError.reason }
        return switch kind {
        case .discovery: "discovery"
        case .tokenExchange: "token_exchange"
        case .idToken: "id_token"
        case .profile: "profile"
        case .configuration: "configuration"
        case .entraTenantNotAllowed: "tenant_not_allowed"
        case .hostedDomainNotAllowed: "hosted_domain_not_allowed"
        case .refreshRefused: "refresh_refused"
        case .nonce: "nonce"
        }
    }

    /// The refusal in its parts for the app: the provider's answer, or Hearth's own reason.
    public func errorInfo(providerId: String) -> ProviderErrorInfo {
        var info = providerError ?? ProviderErrorInfo(reason: reason)
        info.providerId = providerId
        return info
    }

    static func idToken(_ message: String) -> RelyingPartyError { RelyingPartyError(.idToken, message) }
}
