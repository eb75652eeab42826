import Foundation
import HearthCore
import HearthWire
import Logging

/// The administrator's Microsoft Entra tenant allow-list (`IdPConfig.allowedEntraTenants`), resolved for one sign-in:
/// verified domains are turned into tenant ids through the domain's own OpenID discovery document (its issuer
/// `…/<tenant id>/v2.0`, cached for an hour like every discovery document).
public struct EntraTenantAllowList: Sendable, Equatable {
    /// Lower-case tenant GUIDs (given, or resolved from domains); never the consumer tenant.
    public var entraTenantIds: Set<String>
    /// Personal Microsoft accounts (`consumers`, or the consumer tenant's GUID).
    public var consumers: Bool
    /// Every work or school tenant (`organizations`).
    public var organizations: Bool
    /// Domains whose tenant could not be found (nobody from them can sign in until they resolve).
    public var unresolvedDomains: [String]

    public init(entraTenantIds: Set<String> = [], consumers: Bool = false, organizations: Bool = false, unresolvedDomains: [String] = []) {
        self.entraTenantIds = entraTenantIds
        self.consumers = consumers
        self.organizations = organizations
        self.unresolvedDomains = unresolvedDomains
    }

    /// Whether accounts of tenant `tid` may sign in.
    public func allows(tid: String) -> Bool {
        let tid = tid.lowercased()
        if tid == ProviderRules.entraConsumerTenant { return consumers }
        return organizations || entraTenantIds.contains(tid)
    }

    /// Whether no tenant at all can sign in (every entry was an unresolvable domain).
    var isEmpty: Bool { entraTenantIds.isEmpty && !consumers && !organizations }

    /// The authority path segment that asks Microsoft for exactly these tenants, or the narrowest one that
    /// contains them: one work tenant → its GUID; only personal accounts → `consumers`; only work tenants →
    /// `organizations`; both → `common`. The `tid` check narrows the rest.
    var authority: String {
        if consumers { return entraTenantIds.isEmpty && !organizations ? "consumers" : "common" }
        if !organizations, entraTenantIds.count == 1 { return entraTenantIds.first! }
        return "organizations"
    }

    /// The entries an administrator may write: a tenant GUID, a domain, `consumers` or `organizations`
    /// (lower-cased, duplicates removed). `common` is refused: it is "any tenant", which an empty list says.
    public static func normalize(_ entries: [String]) throws -> [String] {
        var result: [String] = []
        for raw in entries {
            let entry = raw.trimmingCharacters(in: .whitespaces).lowercased()
            guard !entry.isEmpty else { continue }
            let valid: Bool
            if entry == "consumers" || entry == "organizations" || UUID(uuidString: entry) != nil {
                valid = true
            } else {
                let labels = entry.split(separator: ".", omittingEmptySubsequences: false)
                valid = entry.count <= 253 && labels.count >= 2 && labels.allSatisfy { label in
                    !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                        && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
                }
            }
            guard valid else {
                throw RelyingPartyError(.configuration, "'\(raw)' is not a Microsoft tenant: give a tenant id (GUID), a verified domain (contoso.com), consumers or organizations; an empty list allows every tenant")
            }
            if !result.contains(entry) { result.append(entry) }
        }
        return result
    }
}

extension RelyingParty {
    /// The allow-list of `config` with its domains resolved, or nil when every tenant is allowed.
    func entraTenantAllowList(_ config: IdPConfig, base: String) async -> EntraTenantAllowList? {
        guard let entries = config.allowedEntraTenants, !entries.isEmpty else { return nil }
        var list = EntraTenantAllowList()
        for entry in entries.map({ $0.lowercased() }) {
            switch entry {
            case "consumers", ProviderRules.entraConsumerTenant: list.consumers = true
            case "organizations": list.organizations = true
            default:
                if UUID(uuidString: entry) != nil {
                    list.entraTenantIds.insert(entry)
                } else if let tid = try? await entraTenantId(of: entry, base: base) {
                    if tid == ProviderRules.entraConsumerTenant { list.consumers = true } else { list.entraTenantIds.insert(tid) }
                } else {
                    list.unresolvedDomains.append(entry)
                    logger.warning("a Microsoft tenant domain of the allow-list could not be resolved; its accounts cannot sign in",
                                   metadata: ["provider": "\(config.providerId)", "domain": "\(entry)"])
                }
            }
        }
        return list
    }

    /// The tenant GUID of a tenant segment (a GUID, or a domain resolved through its discovery document).
    func entraTenantId(of entraTenant: String, base: String) async throws -> String {
        if UUID(uuidString: entraTenant) != nil { return entraTenant.lowercased() }
        let document = try await discovery.document(at: "\(base)/\(entraTenant)/v2.0/.well-known/openid-configuration")
        let prefix = base + "/"
        guard document.issuer.hasPrefix(prefix) else {
            throw RelyingPartyError(.discovery, "the Microsoft discovery document of \(entraTenant) names a foreign issuer")
        }
        let segment = document.issuer.dropFirst(prefix.count).split(separator: "/").first.map(String.init) ?? ""
        guard UUID(uuidString: segment) != nil else {
            throw RelyingPartyError(.discovery, "the Microsoft discovery document of \(entraTenant) names no tenant id")
        }
        return segment.lowercased()
    }

    /// The authority segment for a sign-in that asked for `requested` under `list`: the request may narrow the
    /// allow-list but never widen it (a tenant outside it is refused before the user sees a login page).
    func narrowedAuthority(_ requested: String, list: EntraTenantAllowList, base: String) async throws -> String {
        guard !list.isEmpty else {
            throw RelyingPartyError(.entraTenantNotAllowed, "none of the allowed Microsoft tenants could be found (\(list.unresolvedDomains.joined(separator: ", ")))")
        }
        switch requested.lowercased() {
        case "common":
            return list.authority
        case "organizations":
            var work = list
            work.consumers = false
            guard !work.isEmpty else { throw RelyingPartyError(.entraTenantNotAllowed, "this app accepts personal Microsoft accounts only") }
            return work.authority
        case "consumers":
            guard list.consumers else { throw RelyingPartyError(.entraTenantNotAllowed, "this app does not accept personal Microsoft accounts") }
            return "consumers"
        default:
            let tid: String
            do {
                tid = try await entraTenantId(of: requested, base: base)
            } catch {
                throw RelyingPartyError(.entraTenantNotAllowed, "the Microsoft tenant \(requested) is not allowed to sign in to this app")
            }
            guard list.allows(tid: tid) else {
                throw RelyingPartyError(.entraTenantNotAllowed, "the Microsoft tenant \(requested) is not allowed to sign in to this app")
            }
            return requested
        }
    }
}
