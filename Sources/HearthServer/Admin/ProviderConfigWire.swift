import Foundation
import HearthCore
import HearthWire

/// The admin API's provider-config updates at the HTTP edge: `PATCH …/defaultSupportedIdpConfigs/{idp}` and
/// `PATCH …/oauthIdpConfigs/{oidc.x}` with `?updateMask=a,b` (each named field is set from the body; without a mask,
/// the fields present in the body), read into typed ``ProviderSettingChange``s in the mask's order.
enum ProviderConfigWire {
    /// The changes of a built-in provider's update: `INVALID_UPDATE_MASK` for a field it does not have.
    static func changes(_ body: DefaultSupportedIdpConfig, updateMask: String?) throws -> [ProviderSettingChange] {
        try maskFields(updateMask, body: body, allowed: ProviderSettingChange.builtInPaths).compactMap { field in
            switch field {
            case "enabled": .enabled(body.enabled ?? false)
            case "clientId": .clientId(body.clientId)
            case "clientSecret": .clientSecret(body.clientSecret)
            case "endpointBase": .endpointBase(body.endpointBase)
            case "graphBase": .graphBase(body.graphBase)
            case "allowedTenants": .allowedEntraTenants(body.allowedTenants)
            case "allowedHostedDomains": .allowedHostedDomains(body.allowedHostedDomains)
            case "tokenVault": .tokenVault(body.tokenVault ?? true)
            case "nativeClientIds": .nativeClientIds(body.nativeClientIds ?? [])
            case "appleSignInConfig": .appleSignInConfig(body.appleSignInConfig)
            case "appleSignInConfig.bundleIds": .appleBundleIds(body.appleSignInConfig?.bundleIds)
            case "appleSignInConfig.codeFlowConfig": .appleCodeFlow(body.appleSignInConfig?.codeFlowConfig)
            default: nil
            }
        }
    }

    /// The changes of an OpenID provider's update: `INVALID_UPDATE_MASK` for a field it does not have.
    static func changes(_ body: OAuthIdpConfig, updateMask: String?) throws -> [ProviderSettingChange] {
        try maskFields(updateMask, body: body, allowed: ProviderSettingChange.openIDPaths).compactMap { field in
            switch field {
            case "enabled": .enabled(body.enabled ?? false)
            case "clientId": .clientId(body.clientId)
            case "clientSecret": .clientSecret(body.clientSecret)
            case "issuer": .issuer(body.issuer)
            case "displayName": .displayName(body.displayName)
            case "tokenVault": .tokenVault(body.tokenVault ?? true)
            case "nativeClientIds": .nativeClientIds(body.nativeClientIds ?? [])
            case "responseType": .responseType(code: body.responseType?.code, field: .whole)
            case "responseType.code": .responseType(code: body.responseType?.code, field: .code)
            case "responseType.idToken": .responseType(code: body.responseType?.code, field: .idToken)
            default: nil
            }
        }
    }

    /// The fields to update: the mask's, checked against `allowed`; without a mask, those present in the body.
    static func maskFields(_ updateMask: String?, body: some Encodable, allowed: Set<String>) throws -> [String] {
        let fields: [String]
        if let updateMask, !updateMask.isEmpty {
            fields = updateMask.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        } else {
            let data = try JSONEncoder().encode(body)
            let object = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
            fields = object.keys.filter { $0 != "name" }.sorted()
        }
        try ProviderSettingChange.check(fields, allowed: allowed)
        return fields
    }
}
