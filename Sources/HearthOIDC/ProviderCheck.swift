import Foundation
import NIOCore
import HearthCore
import HearthWire

extension RelyingParty {
    /// Checks a provider's configuration without a user (`hearth providers test`, the admin API's `:test`):
    /// the discovery document is reachable and names the expected issuer, the signing keys are published, the
    /// token endpoint accepts the client id and secret, and which redirect URI must be registered. Each finding
    /// says what to fix in words.
    ///
    /// The client probe redeems a made-up authorization code: a token endpoint authenticates the client before
    /// it looks at the code (RFC 6749 §4.1.3, §5.2), so `invalid_client` (Microsoft AADSTS7000215 wrong
    /// secret, AADSTS7000222 expired secret, AADSTS700016 unknown application) means the credentials are wrong
    /// and `invalid_grant` means they were accepted. No user, code or token is involved, and nothing is created
    /// at the provider.
    public func checkConfiguration(_ config: IdPConfig, redirectUri: String, probeTimeout: TimeAmount = .seconds(4),
                                   progress: @escaping @Sendable (String) -> Void = { _ in }) async -> ProviderCheckReport {
        // Each probe waits at most `probeTimeout` (a check without network answers in seconds, not half a minute), on
        // a relying party of its own (nothing cached from or for sign-ins).
        let probing = RelyingParty(http: http.with(timeout: probeTimeout), clock: clock,
                                   configuration: .init(minimumJWKSRefetchInterval: 0), logger: logger)
        return await probing.runChecks(config, redirectUri: redirectUri, progress: progress)
    }

    private func runChecks(_ config: IdPConfig, redirectUri: String, progress: @escaping @Sendable (String) -> Void) async -> ProviderCheckReport {
        var checks: [ProviderCheckReport.Check] = []
        let discoveryURL = Self.discoveryURL(config)
        // Reachability first: with no network (no DNS, no route) that is the finding, named as such, before anything
        // that would only fail because of it (a tenant lookup would blame the tenant).
        progress("checking that \(discoveryURL) answers…")
        // Apple's issuer as its own discovery document names it, when that differs from the endpoint base.
        var appleIssuerMismatch: ProviderCheckReport.Check?
        do {
            let reply = try await http.get(discoveryURL)
            if reply.status != 200 {
                checks.append(.init(name: "discovery", status: .failed, detail: "HTTP: \(discoveryURL) answered \(reply.status)",
                                    fix: config.kind == .oidc ? "set the issuer to the provider's issuer URL (its discovery document is <issuer>/.well-known/openid-configuration)"
                                        : "check the endpoint base URL"))
                return ProviderCheckReport(providerId: config.providerId, redirectUri: redirectUri, checks: checks + [redirectCheck(config, redirectUri)])
            }
            if config.kind == .apple { appleIssuerMismatch = Self.appleIssuerMismatch(config, discovery: reply) }
        } catch {
            checks.append(.init(name: "discovery", status: .failed, detail: UpstreamHTTP.describe(error, url: discoveryURL),
                                fix: "check that this server can reach \(discoveryURL) (network, DNS, firewall, proxy) and that the \(config.kind == .oidc ? "issuer" : "endpoint base") URL is right"))
            return ProviderCheckReport(providerId: config.providerId, redirectUri: redirectUri, checks: checks + [redirectCheck(config, redirectUri)])
        }
        if config.clientId.isEmpty {
            checks.append(.init(name: "client", status: .failed, detail: "no client id is configured",
                                fix: "set the client id registered at \(config.providerId) (hearth providers enable \(config.providerId) --client-id …)"))
        }
        if config.kind == .apple, !config.hasAppleCodeFlow {
            checks.append(.init(name: "client", status: .warning, detail: "no Sign in with Apple key is configured: native sign-in only (bundle ids), no web flow or revocation",
                                fix: "give the key: hearth providers enable apple.com --services-id … --team-id … --key-id … --private-key-file AuthKey_….p8"))
        } else if config.clientSecret.isEmpty {
            checks.append(.init(name: "client", status: .failed, detail: "no client secret is configured",
                                fix: "set the client secret (HEARTH_CLIENT_SECRET=… hearth providers enable \(config.providerId))"))
        }
        if let entries = config.allowedEntraTenants, !entries.isEmpty, config.kind == .microsoft {
            progress("checking the tenant allow-list…")
            let base = Self.trimmed(config.endpointBase ?? ProviderRules.microsoftAuthority)
            let list = await entraTenantAllowList(config, base: base)
            if let list, !list.unresolvedDomains.isEmpty {
                checks.append(.init(name: "tenants", status: list.isEmpty ? .failed : .warning,
                                    detail: "no Microsoft tenant was found for \(list.unresolvedDomains.joined(separator: ", "))",
                                    fix: "use the tenant id (Entra admin center → Overview → Tenant ID) or a domain verified in that tenant"))
            } else {
                checks.append(.init(name: "tenants", status: .ok, detail: "allowed: \(entries.joined(separator: ", "))"))
            }
        }

        let provider: ResolvedProvider
        progress("checking the discovery document and its issuer…")
        do {
            provider = try await resolve(config, entraTenantOrHostedDomain: nil)
            let fetched = provider.entraTenantOrHostedDomain.map {
                "\(Self.trimmed(config.endpointBase ?? ProviderRules.microsoftAuthority))/\($0)/v2.0/.well-known/openid-configuration"
            } ?? discoveryURL
            checks.append(.init(name: "discovery", status: .ok, detail: "\(fetched) answered"))
            checks.append(appleIssuerMismatch ?? .init(name: "issuer", status: .ok, detail: "the issuer is \(provider.discovery.issuer)"))
        } catch let error as RelyingPartyError {
            let fix: String = switch error.kind {
            case .discovery where error.message.contains("could not be fetched"):
                "check that this server can reach \(discoveryURL) (DNS, firewall, proxy) and that the \(config.kind == .oidc ? "issuer" : "endpoint base") URL is right"
            case .discovery:
                config.kind == .oidc ? "set the issuer to exactly the issuer its discovery document names" : "check the endpoint base URL"
            case .entraTenantNotAllowed: "fix the tenant allow-list"
            default: "check the provider's settings"
            }
            checks.append(.init(name: "discovery", status: .failed, detail: error.message, fix: fix))
            return ProviderCheckReport(providerId: config.providerId, redirectUri: redirectUri, checks: checks + [redirectCheck(config, redirectUri)])
        } catch {
            checks.append(.init(name: "discovery", status: .failed, detail: "the discovery document could not be read", fix: "check the provider's URL"))
            return ProviderCheckReport(providerId: config.providerId, redirectUri: redirectUri, checks: checks + [redirectCheck(config, redirectUri)])
        }

        progress("checking the signing keys…")
        do {
            let count = try await validator.jwks.usableKeyCount(uri: provider.discovery.jwksURI)
            checks.append(count > 0
                ? .init(name: "keys", status: .ok, detail: "\(count) signing key\(count == 1 ? "" : "s") published at \(provider.discovery.jwksURI)")
                : .init(name: "keys", status: .failed, detail: "the provider publishes no RS256/ES256 signing key", fix: "check the provider's jwks_uri"))
        } catch {
            checks.append(.init(name: "keys", status: .failed, detail: "the signing keys at \(provider.discovery.jwksURI) could not be read",
                                fix: "check that this server can reach the provider's jwks_uri"))
        }

        // With Apple's issuer elsewhere, the token endpoint refuses the client secret's audience whatever the key: the
        // client check would blame the key, so the issuer finding stands alone.
        if !config.clientId.isEmpty, !config.clientSecret.isEmpty, appleIssuerMismatch == nil {
            progress("checking the client id and secret at the token endpoint…")
            checks.append(await clientCheck(provider, redirectUri: redirectUri))
        }
        checks.append(redirectCheck(config, redirectUri))
        return ProviderCheckReport(providerId: config.providerId, redirectUri: redirectUri, checks: checks)
    }

    func redirectCheck(_ config: IdPConfig, _ redirectUri: String) -> ProviderCheckReport.Check {
        let place = switch config.kind {
        case .microsoft: "in the Azure portal (App registrations → your app → Authentication → Web platform)"
        case .yahoo: "at the Yahoo Developer Network (My Apps → your app → Redirect URI(s))"
        case .oidc: "at the provider's OAuth client"
        case .apple: "at Apple (Certificates, Identifiers & Profiles → Identifiers → your Services ID → Sign in with Apple → Return URLs; Apple requires https and a verified domain)"
        case .google: "in the Google Cloud console (APIs & Services → Credentials → your Web client → Authorized redirect URIs)"
        }
        var status = ProviderCheckReport.Check.Status.info
        var fix = "register exactly \(redirectUri) \(place)"
        if redirectUri.hasPrefix("http://"), !(URLComponents(string: redirectUri)?.host.map { ["127.0.0.1", "localhost", "[::1]", "::1"].contains($0) } ?? false) {
            status = .warning
            fix += "; providers refuse plain http redirect URIs except on localhost: serve Hearth over https and set --public-url"
        }
        return .init(name: "redirectUri", status: status, detail: "the provider must list \(redirectUri) as a redirect URI", fix: fix)
    }

    func clientCheck(_ provider: ResolvedProvider, redirectUri: String) async -> ProviderCheckReport.Check {
        let fields: [(String, String)] = [
            ("grant_type", "authorization_code"), ("code", "hearth-configuration-check-" + RandomID.alphanumeric(count: 16)),
            ("redirect_uri", redirectUri),
        ]
        let reply: UpstreamHTTP.Reply
        do {
            // The client authenticates exactly as a sign-in's code exchange does (form body or HTTP Basic).
            reply = try await postToTokenEndpoint(provider, fields)
        } catch {
            return .init(name: "client", status: .failed,
                         detail: "the token endpoint could not be reached (\(UpstreamHTTP.describe(error, url: provider.discovery.tokenEndpoint)))",
                         fix: "check that this server can reach the provider's token endpoint")
        }
        let body = (try? JSONDecoder().decode(JSONValue.self, from: reply.body))?.objectValue ?? [:]
        let info = ProviderErrorInfo.parse(providerId: provider.config.providerId, fields: body)
        let codes = Set(info.errorCodes)
        let error = info.error?.lowercased() ?? ""
        let id = provider.config.clientId
        let cited = ([info.error ?? "HTTP \(reply.status)"] + info.errorCodes).joined(separator: ", ")
        if codes.contains("AADSTS700016") || error == "unauthorized_client" {
            return .init(name: "client", status: .failed, detail: "the provider does not know the client id \(id) (\(cited))",
                         fix: "copy the Application (client) ID of the app registration, and check it is registered in the directory the endpoint base points at",
                         providerError: info)
        }
        if codes.contains("AADSTS7000222") {
            return .init(name: "client", status: .failed, detail: "the client secret has expired (\(cited))",
                         fix: "create a new client secret (Certificates & secrets → New client secret) and store its Value: HEARTH_CLIENT_SECRET=… hearth providers enable \(provider.config.providerId)",
                         providerError: info)
        }
        if provider.config.kind == .apple, error == "invalid_client" || reply.status == 401 {
            return .init(name: "client", status: .failed,
                         detail: "Apple refused the client secret Hearth minted for services id \(id) (\(cited)): the key, its key id, the team id or the services id is wrong",
                         fix: "check the Key ID and Team ID beside the key in Apple's developer portal, that the key has Sign in with Apple for this app's primary App ID, and give the .p8 again: hearth providers enable apple.com --team-id … --key-id … --private-key-file AuthKey_….p8",
                         providerError: info)
        }
        if error == "invalid_client" || reply.status == 401 {
            return .init(name: "client", status: .failed, detail: "the provider refused the client id and secret: the client secret is wrong (\(cited))",
                         fix: "store the secret's Value (not its Secret ID) issued for client id \(id): HEARTH_CLIENT_SECRET=… hearth providers enable \(provider.config.providerId)",
                         providerError: info)
        }
        if codes.contains("AADSTS50011") || error == "redirect_uri_mismatch" {
            return .init(name: "client", status: .failed, detail: "the provider refused the redirect URI (\(cited))",
                         fix: "register \(redirectUri) as a redirect URI", providerError: info)
        }
        if error == "invalid_grant" || codes.contains("AADSTS9002313") || codes.contains("AADSTS70000") {
            return .init(name: "client", status: .ok, detail: "the token endpoint accepted the client id \(id) and its secret (it refused only the made-up code: \(cited))")
        }
        if reply.status == 200 {
            return .init(name: "client", status: .warning, detail: "the token endpoint accepted a made-up code",
                         fix: "the provider does not check authorization codes; do not use it")
        }
        return .init(name: "client", status: .warning, detail: "the token endpoint answered \(cited); the client id and secret could not be confirmed",
                     fix: "sign in once (hearth sign-in or /__dev/try) to confirm the settings", providerError: info)
    }

    /// Apple's discovery document names its issuer: the `iss` of its ID tokens and the audience its token endpoint
    /// requires of client secrets. Hearth takes both from the endpoint base, so a document there naming another issuer
    /// (the dev provider reached by another host name or port than the server's public URL, `localhost` for
    /// `127.0.0.1`) means every code exchange is refused as `invalid_client` and every ID token has the wrong issuer,
    /// whatever the key. nil when the document names the endpoint base (or names no issuer).
    static func appleIssuerMismatch(_ config: IdPConfig, discovery reply: UpstreamHTTP.Reply) -> ProviderCheckReport.Check? {
        guard let named = (try? JSONDecoder().decode(JSONValue.self, from: reply.body))?.objectValue?["issuer"]?.stringValue,
              !named.isEmpty else { return nil }
        let base = config.appleSettings.base
        let issuer = trimmed(named)
        guard issuer != base else { return nil }
        return .init(name: "issuer", status: .failed,
                     detail: "the provider at \(base) names its issuer \(issuer): its ID tokens carry that issuer and its token endpoint accepts only client secrets addressed to it, but Hearth takes both from the endpoint base \(base), so every code exchange would be refused as invalid_client whatever the key",
                     fix: "set the endpoint base to exactly \(issuer) (the same scheme, host and port: localhost and 127.0.0.1 differ): hearth providers enable apple.com --endpoint-base \(issuer)")
    }

    static func discoveryURL(_ config: IdPConfig) -> String {
        switch config.kind {
        case .microsoft: "\(trimmed(config.endpointBase ?? ProviderRules.microsoftAuthority))/common/v2.0/.well-known/openid-configuration"
        case .yahoo: "\(trimmed(config.endpointBase ?? ProviderRules.yahooBase))/.well-known/openid-configuration"
        case .oidc: "\(trimmed(config.issuer ?? ""))/.well-known/openid-configuration"
        case .apple: "\(config.appleSettings.base)/.well-known/openid-configuration"
        case .google: config.googleSettings.discoveryURL
        }
    }

    /// Normalizes an allow-list for storage (see ``EntraTenantAllowList/normalize(_:)``).
    public static func normalizedEntraTenantAllowList(_ entries: [String]) throws -> [String] {
        try EntraTenantAllowList.normalize(entries)
    }
}
