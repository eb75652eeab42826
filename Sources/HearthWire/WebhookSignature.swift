import Crypto
import Foundation

/// The signature Hearth puts on a webhook call (the SMS webhook, `sms.url` = `https://…` with `sms.webhook.secret`):
/// the header `X-Hearth-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed by the secret>`.
/// A receiver recomputes the MAC over the exact body bytes, compares in constant time and refuses an old `t`
/// (a replayed call); docs/phone.md shows it in a few lines of Python.
public enum WebhookSignature {
    /// The header's name.
    public static let headerName = "X-Hearth-Signature"

    /// The header's value for `body` sent at `timestamp` (Unix seconds).
    public static func header(body: Data, secret: String, timestamp: Int) -> String {
        "t=\(timestamp),v1=\(mac(body: body, secret: secret, timestamp: timestamp))"
    }

    /// Whether `header` signs `body` with `secret` at most `tolerance` seconds from `now`.
    public static func verify(header: String, body: Data, secret: String, now: Date, tolerance: TimeInterval = 300) -> Bool {
        var timestamp: Int?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int(pair[1]) }
            if pair[0] == "v1" { signatures.append(pair[1]) }
        }
        guard let timestamp, abs(now.timeIntervalSince1970 - Double(timestamp)) <= tolerance else { return false }
        let expected = Array(mac(body: body, secret: secret, timestamp: timestamp).utf8)
        return signatures.contains { candidate in
            let given = Array(candidate.utf8)
            guard given.count == expected.count else { return false }
            return zip(given, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
        }
    }

    static func mac(body: Data, secret: String, timestamp: Int) -> String {
        var message = Data("\(timestamp).".utf8)
        message.append(body)
        return HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Data(secret.utf8)))
            .map { String(format: "%02x", $0) }.joined()
    }
}
