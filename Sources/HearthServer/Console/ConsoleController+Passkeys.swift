import Foundation
import HearthCore
import HearthPages
import HearthStore
import HearthWire
import Hummingbird

/// Passkeys in the console: the project's `passkeys` setting (Settings) and a user's passkeys with their removal
/// (the user's page), both through the admin service (validated and audited as the admin API's calls are).
extension ConsoleController {
    func registerPasskeys(on router: Router<HearthRequestContext>) {
        router.post("/console/settings/passkeys") { request, _ in
            try await action(request) { session, form in
                let verification = form.text("userVerification")?.uppercased() ?? "REQUIRED"
                guard ["REQUIRED", "PREFERRED"].contains(verification) else {
                    throw HearthAPIError(.invalidConfig, "user verification is REQUIRED or PREFERRED ('\(verification.prefix(20))' was sent)")
                }
                let origins = (form["allowedOrigins"] ?? "").split(whereSeparator: { $0.isWhitespace || $0 == "," }).map(String.init)
                let before = try await service.passkeySetting()
                // Checked and audited as the admin API's `updateMask=passkeys.…` is (one `config.update`).
                let after = try await service.updatePasskeySetting(enabled: form.flag("enabled"), rpId: form.text("rpId") ?? "",
                                                                   allowedOrigins: origins, userVerification: verification, by: principal(session))
                return redirect("/console/settings?ok=\(before.rpId == after.rpId ? "passkeys" : "passkeys-rp-id")#passkeys")
            }
        }
        scopedAction(router, "/user/passkeys/remove") { session, form, target in
            let uid = try AdminService.checkLocalId(form["uid"])
            guard let credentialId = form.text("credentialId") else {
                throw HearthAPIError(.invalidArgument, "the form names no passkey (credentialId); reload the user's page and try again")
            }
            try await service.removePasskeys(localId: uid, credentialIds: [credentialId], by: principal(session), in: target.scope)
            return redirect(userHref(uid, in: target) + "&ok=passkey-removed#passkeys")
        }
    }

    /// The Settings card's view model.
    func passkeysCard() async throws -> SettingsPage.Passkeys {
        let setting = try await service.passkeySetting()
        return SettingsPage.Passkeys(enabled: setting.enabled, rpId: setting.storedRpId ?? "", defaultRpId: setting.publicHost,
                                     effectiveRpId: setting.rpId, allowedOrigins: setting.allowedOrigins.joined(separator: "\n"),
                                     builtInOrigins: setting.builtInOrigins, verificationRequired: setting.userVerification != "PREFERRED",
                                     rpIdIsIPAddress: setting.rpIdIsIPAddress)
    }

    /// The user's passkeys for the user page (from the store: created and last used are not in `passkeyInfo`).
    func passkeys(of localId: String, in target: ConsoleScope) async throws -> [UserPage.Passkey] {
        try await target.scope.store.passkeys(localId: localId).map { passkey in
            UserPage.Passkey(name: passkey.name.flatMap { $0.isEmpty ? nil : $0 } ?? "Passkey", credentialId: passkey.credentialId,
                             shortId: Self.shortCredentialId(passkey.credentialId), registered: Self.display(passkey.createdAt),
                             lastUsed: passkey.lastUsedAt.map { Self.display($0) } ?? "never",
                             storage: passkey.backupEligible ? "synced" : "device-bound")
        }
    }

    /// The first and last characters of a long credential id (ids are 16 to 1023 bytes).
    static func shortCredentialId(_ id: String) -> String {
        id.count <= 20 ? id : "\(id.prefix(10))…\(id.suffix(6))"
    }
}
