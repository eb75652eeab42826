import Foundation
import HearthCore
import Testing

/// The provider token vault's keys: the text form, rotation, binding to the row, and no key material in messages.
@Suite struct ProviderTokenKeysTests {
    static let a = ProviderTokenKeys.generate(id: "a")
    static let b = ProviderTokenKeys.generate(id: "b")

    @Test func textFormAndRotation() throws {
        let keys = try ProviderTokenKeys.parse("# vault keys\n\(Self.b)  # new\n\n\(Self.a)\n")
        #expect(keys.activeKeyId == "b" && keys.keyIds == ["b", "a"])
        #expect(try ProviderTokenKeys.parse("\(Self.b),\(Self.a)").keyIds == ["b", "a"])
        let old = try ProviderTokenKeys.parse(Self.a)
        let tokens = ProviderTokens(refreshToken: "rt-secret", accessToken: "at-secret", accessTokenExpiresAt: Date(timeIntervalSince1970: 1_800_000_000),
                                    clientId: "client", scope: "openid", entraTenantOrHostedDomain: "common")
        let (keyId, sealed) = try old.seal(tokens, localId: "u1", providerId: "microsoft.com")
        #expect(keyId == "a" && !sealed.contains("secret"))
        // The rotated list still opens it; a list without key a cannot; another row's context cannot.
        #expect(try keys.open(sealed: sealed, keyId: keyId, localId: "u1", providerId: "microsoft.com") == tokens)
        #expect(throws: ProviderTokenVaultError.unknownKey("a")) {
            try ProviderTokenKeys.parse(Self.b).open(sealed: sealed, keyId: "a", localId: "u1", providerId: "microsoft.com")
        }
        #expect(throws: ProviderTokenVaultError.undecryptable) { try keys.open(sealed: sealed, keyId: "a", localId: "u1", providerId: "yahoo.com") }
        // Another key under the same id does not open it either.
        let impostor = try ProviderTokenKeys.parse(ProviderTokenKeys.generate(id: "a"))
        #expect(throws: ProviderTokenVaultError.undecryptable) { try impostor.open(sealed: sealed, keyId: "a", localId: "u1", providerId: "microsoft.com") }
        // Each seal is different (random nonce).
        #expect(try old.seal(tokens, localId: "u1", providerId: "microsoft.com").sealed != sealed)
    }

    @Test func malformedKeysAreRefusedWithoutShowingThem() throws {
        let material = String(Self.a.split(separator: ":")[1])
        let cases: [(String, String)] = [
            ("", "no key given"), ("# only a comment", "no key given"), (material, "id:base64"),
            ("k1:not base64!!", "not base64"), ("k1:c2hvcnQ=", "32 bytes"), ("bad id:\(material)", "letters, digits"),
            ("k1:\(material),k1:\(material)", "appears twice"),
        ]
        for (text, expected) in cases {
            do {
                _ = try ProviderTokenKeys.parse(text)
                Issue.record("\(text) was accepted")
            } catch let error as ProviderTokenVaultError {
                #expect("\(error)".contains(expected), "\(error)")
                #expect(!"\(error)".contains(material))
            }
        }
        let keys = try ProviderTokenKeys.parse(Self.a)
        #expect(!"\(keys)".contains(material) && "\(keys)".contains("active: a"))
        let tokens = ProviderTokens(refreshToken: "rt-secret", accessToken: "at-secret", accessTokenExpiresAt: nil, clientId: "c")
        #expect(!"\(tokens)".contains("secret"))
    }
}
