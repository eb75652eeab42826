import CryptoExtras
import Foundation

extension ServiceAccountKey {
    /// A new 2048-bit RSA key for `clientEmail`: the registration (public half) and the Google-format
    /// service-account file holding the private key, whose `token_uri` is `<publicURL>/oauth2.googleapis.com/token`.
    /// The file is shown to its owner once and never stored.
    public static func generate(clientEmail: String, projectId: String, publicURL: String, now: Date) throws -> (key: ServiceAccountKey, file: Data) {
        let privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let keyId = RandomID.token(byteCount: 20).lowercased().filter { $0.isLetter || $0.isNumber }
        let base = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        let file: [String: String] = [
            "type": "service_account", "project_id": projectId, "private_key_id": keyId,
            "private_key": privateKey.pkcs8PEMRepresentation + "\n", "client_email": clientEmail, "client_id": "0",
            "token_uri": "\(base)/oauth2.googleapis.com/token",
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let key = ServiceAccountKey(clientEmail: clientEmail, keyId: keyId, publicKeyPEM: privateKey.publicKey.pemRepresentation, createdAt: now)
        return (key, try encoder.encode(file))
    }
}
