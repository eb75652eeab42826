import Foundation
import HearthOIDC
import HearthWire
import Logging
import NIOCore

/// App verification for SMS sends (issue 40): a reCAPTCHA token checked with the site-verify protocol — a form `POST`
/// of `secret`, `response` and `remoteip` to the verification endpoint (Google's, or any endpoint answering the same
/// way), whose JSON answer `{success, score?, action?, hostname?, "error-codes"?}` passes when `success` is true and,
/// when it has a `score` (reCAPTCHA v3 and Enterprise keys), the score is at least the project's minimum.
///
/// The secret is sent only to the endpoint and never logged; the token is never logged either.
struct RecaptchaVerifier: Sendable {
    /// The longest token sent on (reCAPTCHA's are a few thousand characters); a longer one is refused unsent.
    static let maxTokenLength = 8192

    let http: UpstreamHTTP
    let logger: Logger

    init(http: UpstreamHTTP = UpstreamHTTP(timeout: .seconds(5), maxBodySize: 64 * 1024), logger: Logger) {
        self.http = http
        self.logger = logger
    }

    /// The endpoint's answer (the fields Hearth reads).
    struct Answer: Decodable {
        var success: Bool?
        var score: Double?
        var action: String?
        var hostname: String?
        var errorCodes: [String]?

        enum CodingKeys: String, CodingKey {
            case success, score, action, hostname
            case errorCodes = "error-codes"
        }
    }

    /// Verifies `token` from a client at `remoteIP`: returns when it passes; `CAPTCHA_CHECK_FAILED` when the endpoint
    /// refuses it (or its score is below `minScore`); `UNAVAILABLE` (503) when the endpoint cannot be asked or answers
    /// something that is not a verdict — a send is never let through unverified.
    func verify(token: String, secret: String, remoteIP: String, verifyURL: String, minScore: Double) async throws {
        guard token.utf8.count <= Self.maxTokenLength, !token.contains("\u{0}") else {
            throw HearthAPIError(.captchaCheckFailed, "the reCAPTCHA token is not one reCAPTCHA issued")
        }
        var fields = [("secret", secret), ("response", token)]
        if !remoteIP.isEmpty { fields.append(("remoteip", remoteIP)) }
        let reply: UpstreamHTTP.Reply
        do {
            reply = try await http.postForm(verifyURL, fields)
        } catch {
            logger.error("reCAPTCHA verification endpoint unreachable", metadata: ["reason": "\(UpstreamHTTP.describe(error, url: verifyURL))"])
            throw Self.unavailable
        }
        guard (200..<300).contains(reply.status), let answer = try? JSONDecoder().decode(Answer.self, from: reply.body),
              let success = answer.success else {
            logger.error("reCAPTCHA verification endpoint answered without a verdict", metadata: ["status": "\(reply.status)"])
            throw Self.unavailable
        }
        guard success else {
            let codes = (answer.errorCodes ?? []).prefix(4).map { String($0.prefix(40)) }.joined(separator: ",")
            logger.notice("reCAPTCHA token refused", metadata: ["errors": "\(codes)"])
            throw HearthAPIError(.captchaCheckFailed, "the reCAPTCHA check failed; solve the reCAPTCHA again and send the new token")
        }
        if let score = answer.score, !(score >= minScore) {
            logger.notice("reCAPTCHA score below the minimum", metadata: ["score": "\(score)", "minimum": "\(minScore)"])
            throw HearthAPIError(.captchaCheckFailed, "the reCAPTCHA check failed (its score is below this project's minimum)")
        }
    }

    static let unavailable = HearthAPIError(
        .unavailable, "the reCAPTCHA verification endpoint could not be reached, so no SMS was sent; try again shortly", httpStatus: 503)
}
