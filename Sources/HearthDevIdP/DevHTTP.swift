import Foundation
import HearthCore
import HearthPages
import HearthWire
import Hummingbird
import NIOCore

/// HTTP pieces every dev provider answers with: form bodies, redirects, JSON, and Apple's `form_post` page (its
/// HTML, like every dev page's, comes from HearthPages' templates).
enum DevHTTP {
    static func formFields(_ request: Request) async throws -> [String: String] {
        var request = request
        let buffer = try await request.collectBody(upTo: 64 * 1024)
        return FormEncoding.fields(String(buffer: buffer))
    }

    /// A 302 to `base` with `parameters` added to its query (nil values left out).
    static func redirect(_ base: String, _ parameters: [String: String?]) -> Response {
        var components = URLComponents(string: base)
        var items = components?.queryItems ?? []
        for (key, value) in parameters.sorted(by: { $0.key < $1.key }) {
            if let value { items.append(URLQueryItem(name: key, value: value)) }
        }
        components?.queryItems = items
        // `+` is a space in forms: encode it.
        let encoded = components?.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        components?.percentEncodedQuery = encoded
        return Response(status: .found, headers: [.location: components?.string ?? base, .cacheControl: "no-store"])
    }

    static func json(_ object: [String: JSONValue], status: HTTPResponse.Status = .ok, cacheControl: String = "no-store") -> Response {
        let data = (try? WireJSON.encoder.encode(JSONValue.object(object))) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json", .cacheControl: cacheControl],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `text` safe inside HTML text and double-quoted attributes.
    static func escape(_ text: String) -> String { EmailTemplates.htmlEscape(text) }

    /// The client's id and secret: HTTP Basic (RFC 6749 §2.3.1, form-encoded parts) when sent, else the form's
    /// `client_id` and `client_secret`.
    static func clientCredentials(_ request: Request, form: [String: String]) -> (id: String?, secret: String?) {
        if let authorization = request.headers[.authorization], authorization.hasPrefix("Basic "),
           let decoded = Data(base64Encoded: String(authorization.dropFirst(6))).flatMap({ String(data: $0, encoding: .utf8) }),
           let colon = decoded.firstIndex(of: ":") {
            return (String(decoded[..<colon]).removingPercentEncoding, String(decoded[decoded.index(after: colon)...]).removingPercentEncoding)
        }
        return (form["client_id"], form["client_secret"])
    }

    /// The script that submits a `form_post` page's form at once.
    static let autoSubmitScript = "document.forms[0].submit();"

    /// The `response_mode=form_post` answer (OAuth 2.0 Form Post Response Mode): a page whose form POSTs
    /// `fields` to `redirectUri` by itself, with a visible button for browsers without JavaScript. The only script
    /// allowed is that one (its hash in the Content-Security-Policy).
    static func formPost(to redirectUri: String, _ fields: [(String, String)]) -> Response {
        let html = Pages.formPost(title: "Returning to the app", action: redirectUri, fields: fields, script: autoSubmitScript)
        let hash = WireDigest.sha256(autoSubmitScript).base64EncodedString()
        return Response(status: .ok,
                        headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                                  .contentSecurityPolicy: "default-src 'none'; script-src 'sha256-\(hash)'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'"],
                        body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
