import Foundation
import HearthCore
import HearthPages
import HearthStore
import HearthWire
import Hummingbird

/// A user's passkeys on the console's user page, and their removal (through the admin API's `deletePasskey`:
/// validated and audited there).
extension ConsoleController {
    func registerPasskeys(on router: Router<HearthRequestContext>) {
        router.post("/console/user/passkeys/remove") { request, _ in
            try await action(request) { session, form in
                let uid = try AdminService.checkLocalId(form["uid"])
                let one = form.text("passkey")
                let ids = if let one { [one] } else { try await store.passkeys(localId: uid).map(\.credentialId) }
                guard !ids.isEmpty else { throw HearthAPIError(.passkeyEnrollmentNotFound, "the user has no passkey") }
                var update = AdminUpdateRequest(localId: uid)
                update.deletePasskey = ids
                _ = try await service.update(update, by: principal(session))
                return redirect(userHref(uid) + "&ok=\(one == nil ? "passkeys-removed-all" : "passkey-removed")#passkeys")
            }
        }
    }

    /// The user's passkeys for the user page, oldest first.
    func passkeys(of localId: String) async throws -> [UserPage.Passkey] {
        try await store.passkeys(localId: localId).sorted { $0.createdAt < $1.createdAt }.map { passkey in
            UserPage.Passkey(name: passkey.name.flatMap { $0.isEmpty ? nil : $0 } ?? "Unnamed passkey",
                             kind: passkey.backedUp ? "synced" : "device-bound", created: Self.display(passkey.createdAt),
                             lastUsed: passkey.lastUsedAt.map(Self.display) ?? "never", credentialId: passkey.credentialId)
        }
    }
}
