import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthTesting
import HearthWire
import HTTPTypes
import Testing

/// The console's passkey parts: the Settings card (through the admin API's `updateMask=passkeys.…`), and a user's
/// passkeys on the user page with their removal (the admin API's `accounts:update` `deletePasskey`).
extension ConsoleTests {
    /// A stored passkey of `localId` as enrollment leaves it (the key itself is never shown).
    static func storedPasskey(_ id: String, of localId: String, name: String?, at date: Date, lastUsed: Date? = nil, synced: Bool = false) -> PasskeyCredential {
        PasskeyCredential(credentialId: id, localId: localId, userHandle: PasskeyBytes.url(Array(localId.utf8)), publicKey: "cHVibGljLWtleS1ieXRlcw", algorithm: -7,
                          signCount: 0, name: name, backupEligible: synced, backedUp: synced, createdAt: date, lastUsedAt: lastUsed)
    }

    @Test func thePasskeysCardSavesThroughTheAdminAPI() async throws {
        try await HearthHarness.run { h in
            let session = try await signIn(h)
            let onIP = try await h.send(.get, "/console/settings", headers: session.headers)
            #expect(onIP.text.contains("127.0.0.1 is an IP address, and browsers refuse passkeys whose rp id is one"))
            // A public URL on a domain, so that a parent domain may be the rp id (an IP address never is).
            h.server.configuration.publicURL.set("https://login.example.com")
            let page = try await h.send(.get, "/console/settings", headers: session.headers)
            #expect(page.text.contains(#"<h2 id="passkeys">Passkeys</h2>"#))
            #expect(!page.text.contains(#"name="enabled" value="true" checked> Allow users to register"#), "off by default")
            #expect(page.text.contains("In force: <code>login.example.com</code>"))
            #expect(page.text.contains(#"name="rpId" value="" placeholder="login.example.com""#))
            #expect(page.text.contains("changing it strands every registered passkey"))
            #expect(page.text.contains("Always allowed: <code>https://login.example.com</code>. Add"))
            #expect(!page.text.contains("is an IP address"))
            #expect(page.text.contains(#"value="REQUIRED" checked"#), "user verification required by default")

            let saved = try await post(h, "/console/settings/passkeys", session, [
                ("csrf", session.csrf), ("enabled", "true"), ("rpId", "Example.com"),
                ("allowedOrigins", "https://app.example.com\r\nhttps://www.example.com:8443\n"), ("userVerification", "PREFERRED"),
            ])
            #expect(saved.status == 303)
            #expect(saved.headers[.location] == "/console/settings?ok=passkeys-rp-id#passkeys", "the rp id changed")
            var project = try #require(try await h.store.projectConfig(projectId: h.projectId))
            #expect(project.passkeysEnabled)
            #expect(project.passkeys?.rpId == "example.com")
            #expect(project.passkeys?.allowedOrigins == ["https://app.example.com", "https://www.example.com:8443"])
            #expect(project.passkeys?.userVerification == "PREFERRED")
            let shown = try await h.send(.get, "/console/settings?ok=passkeys-rp-id", headers: session.headers)
            #expect(shown.text.contains("The rp id changed: passkeys registered for the old one no longer sign in."))
            #expect(shown.text.contains(#"name="enabled" value="true" checked> Allow users to register"#))
            #expect(shown.text.contains("In force: <code>example.com</code>"))
            #expect(shown.text.contains("Always allowed: <code>https://login.example.com</code>, <code>https://example.com</code>. Add"))
            #expect(shown.text.contains("https://app.example.com\nhttps://www.example.com:8443</textarea>"))
            #expect(shown.text.contains(#"value="PREFERRED" checked"#))
            // The admin API answers the same setting.
            let config = try await h.send(.get, "/identitytoolkit.googleapis.com/v2/projects/\(h.projectId)/config", headers: [.authorization: "Bearer owner"])
            #expect(config.text.contains(#""rpId":"example.com""#) && config.text.contains(#""userVerification":"PREFERRED""#), "\(config.text)")

            // The same rp id again: the plain message. An empty field returns to the default.
            let again = try await post(h, "/console/settings/passkeys", session, [("csrf", session.csrf), ("enabled", "true"), ("rpId", "example.com"),
                                                                                  ("userVerification", "REQUIRED")])
            #expect(again.headers[.location] == "/console/settings?ok=passkeys#passkeys")
            project = try #require(try await h.store.projectConfig(projectId: h.projectId))
            #expect(project.passkeys?.allowedOrigins == nil, "an empty list removes the added origins")
            // The server's checks reach the admin (INVALID_CONFIG), and nothing changes.
            for (field, value, message) in [("rpId", "other.org", "host (login.example.com) or a parent domain of it"),
                                            ("rpId", "10.0.0.1", "an IP address cannot be an rp id"),
                                            ("allowedOrigins", "https://evil.org", "is not on the rp id example.com"),
                                            ("allowedOrigins", "https://app.example.com/path", "is not an origin"),
                                            ("userVerification", "SOMETIMES", "user verification is REQUIRED or PREFERRED")] {
                var pairs = [("csrf", session.csrf), ("enabled", "true"), ("rpId", "example.com"), ("userVerification", "REQUIRED")]
                pairs.removeAll { $0.0 == field }
                pairs.append((field, value))
                let refused = try await post(h, "/console/settings/passkeys", session, pairs)
                #expect(refused.status == 400, "\(field)=\(value)")
                #expect(refused.text.contains(message), "\(field)=\(value): \(refused.text)")
            }
            let unchanged = try #require(try await h.store.projectConfig(projectId: h.projectId))
            #expect(unchanged.passkeys == project.passkeys)
            let off = try await post(h, "/console/settings/passkeys", session, [("csrf", session.csrf), ("userVerification", "REQUIRED")])
            #expect(off.status == 303)
            project = try #require(try await h.store.projectConfig(projectId: h.projectId))
            #expect(!project.passkeysEnabled)
            #expect(project.passkeys?.rpId == nil, "an empty rp id field is the default")

            // A forged form and a request without a console session change nothing.
            let forged = try await post(h, "/console/settings/passkeys", session, [("csrf", "wrong"), ("enabled", "true")])
            #expect(forged.status == 403)
            let anonymous = try await h.send(.post, "/console/settings/passkeys", body: Self.form([("csrf", session.csrf), ("enabled", "true")]),
                                             contentType: "application/x-www-form-urlencoded")
            #expect(anonymous.status == 303 && anonymous.headers[.location] == "/console/login")
            #expect(try await h.store.projectConfig(projectId: h.projectId)?.passkeysEnabled == false)
            let audit = try await h.store.auditEntries(before: nil, limit: 30).filter { $0.actor == "console:owner" && $0.action == "config.update" }
            #expect(audit.count == 3)
        }
    }

    @Test func theUserPageListsAndRemovesPasskeys() async throws {
        try await HearthHarness.run { h in
            let session = try await signIn(h)
            let grace = try await h.signUp(email: "grace@example.com")
            let other = try await h.signUp(email: "other@example.com")
            let laptopId = "bGFwdG9wLWNyZWRlbnRpYWwtaWQtMzItYnl0ZXMhISE"
            let keyId = "c2VjdXJpdHkta2V5"
            #expect(try await h.store.insertPasskey(Self.storedPasskey(laptopId, of: grace.localId, name: "MacBook", at: h.clock.now,
                                                                       lastUsed: h.clock.now.addingTimeInterval(60), synced: true)))
            #expect(try await h.store.insertPasskey(Self.storedPasskey(keyId, of: grace.localId, name: nil, at: h.clock.now)))
            #expect(try await h.store.insertPasskey(Self.storedPasskey("b3RoZXItdXNlcnMta2V5", of: other.localId, name: "Theirs", at: h.clock.now)))

            let page = try await h.send(.get, "/console/user?uid=\(grace.localId)", headers: session.headers)
            #expect(page.text.contains(#"<code title="\#(laptopId)">bGFwdG9wLW…XMhISE</code>"#), "a long id shortened, whole in its title")
            #expect(page.text.contains(#"<code title="\#(keyId)">\#(keyId)</code>"#))
            #expect(page.text.contains("MacBook") && page.text.contains(">synced<") && page.text.contains(">device-bound<"))
            #expect(page.text.contains(">Passkey</td>"), "an unnamed passkey")
            #expect(page.text.contains(">never</td>"), "never used")
            #expect(!page.text.contains("Theirs") && !page.text.contains("cHVibGljLWtleS1ieXRlcw"), "not another user's, never the key")
            #expect(page.text.contains(#"aria-label="Remove passkey MacBook (bGFwdG9wLW…XMhISE)""#))
            #expect(page.text.contains("data-confirm=\"Remove the passkey MacBook from this user?"))

            let removed = try await post(h, "/console/user/passkeys/remove", session, [("csrf", session.csrf), ("uid", grace.localId), ("credentialId", laptopId)])
            #expect(removed.status == 303)
            #expect(removed.headers[.location]?.hasSuffix("&ok=passkey-removed#passkeys") == true)
            #expect(try await h.store.passkeys(localId: grace.localId).map(\.credentialId) == [keyId])
            // Another user's passkey, an unknown one: PASSKEY_ENROLLMENT_NOT_FOUND, nothing removed.
            for id in ["b3RoZXItdXNlcnMta2V5", "bm8tc3VjaC1rZXk"] {
                let refused = try await post(h, "/console/user/passkeys/remove", session, [("csrf", session.csrf), ("uid", grace.localId), ("credentialId", id)])
                #expect(refused.status == 400)
                #expect(refused.text.contains("PASSKEY_ENROLLMENT_NOT_FOUND"), "\(refused.text)")
            }
            #expect(try await h.store.passkeys(localId: other.localId).count == 1)
            let missing = try await post(h, "/console/user/passkeys/remove", session, [("csrf", session.csrf), ("uid", grace.localId)])
            #expect(missing.status == 400)
            let forged = try await post(h, "/console/user/passkeys/remove", session, [("csrf", "x"), ("uid", grace.localId), ("credentialId", keyId)])
            #expect(forged.status == 403)
            let anonymous = try await h.send(.post, "/console/user/passkeys/remove",
                                             body: Self.form([("csrf", session.csrf), ("uid", grace.localId), ("credentialId", keyId)]),
                                             contentType: "application/x-www-form-urlencoded")
            #expect(anonymous.status == 303 && anonymous.headers[.location] == "/console/login")
            #expect(try await h.store.passkeys(localId: grace.localId).count == 1)

            let last = try await post(h, "/console/user/passkeys/remove", session, [("csrf", session.csrf), ("uid", grace.localId), ("credentialId", keyId)])
            #expect(last.status == 303)
            let after = try await h.send(.get, "/console/user?uid=\(grace.localId)&ok=passkey-removed", headers: session.headers)
            #expect(after.text.contains("Passkey removed: it no longer signs in to this account."))
            #expect(after.text.contains("None: this user has not registered a passkey."))
            let audit = try await h.store.auditEntries(before: nil, limit: 30).filter { $0.actor == "console:owner" }.map(\.action)
            #expect(audit.filter { $0 == "accounts.update" }.count == 2, "\(audit)")
            let removals = try await h.store.auditEntries(before: nil, limit: 30).filter { $0.action == "passkey.remove" }
            #expect(removals.count == 2 && removals.allSatisfy { $0.actor == "console:owner" && $0.target == grace.localId },
                    "\(removals)")
        }
    }
}
