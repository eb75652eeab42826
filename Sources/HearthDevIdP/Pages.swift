import HearthPages
import Hummingbird
import NIOCore

/// The dev IdPs' HTML responses, rendered with the shared page templates.
enum DevPage {
    /// A message page.
    static func message(_ title: String, _ message: String, status: HTTPResponse.Status = .ok) -> Response {
        response(Pages.message(title: title, message: message, tone: status.code >= 400 ? .error : .info, badge: "development provider"),
                 status: status)
    }

    /// The login form, the same for every dev provider (`login.mustache` and the shared stylesheet); Apple's and
    /// Google's add a note and one checkbox.
    static func login(provider: String, action: String, requestId: String, email: String, name: String, entraTenant: String?,
                      note: String? = nil, checkbox: Pages.Checkbox? = nil, error: String?, status: HTTPResponse.Status = .ok) -> Response {
        response(Pages.login(provider: provider, action: action, requestId: requestId, email: email, name: name, entraTenant: entraTenant,
                             note: note, checkbox: checkbox, error: error),
                 status: status)
    }

    static func response(_ html: String, status: HTTPResponse.Status) -> Response {
        Response(status: status,
                 headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                           .contentSecurityPolicy: Pages.contentSecurityPolicy],
                 body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
