import Hummingbird
import Mustache
import NIOCore

/// HTML pages (mustache templates, HTML-escaped values) of the dev IdPs and the auth handler.
public enum Pages {
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        // The templates are constants: parsing cannot fail at run time.
        try! library.register(MustacheTemplate(string: loginTemplate), named: "login")
        try! library.register(MustacheTemplate(string: messageTemplate), named: "message")
        return library
    }()

    static let style = """
        <style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#222}
        h1{font-size:1.3rem}label{display:block;margin:.8rem 0 .2rem}input[type=text],input[type=email]{width:100%;padding:.5rem;font-size:1rem}
        button{margin-top:1rem;padding:.5rem 1.2rem;font-size:1rem}.note{color:#666;font-size:.9rem}.error{color:#b00}</style>
        """

    static let loginTemplate = """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
        <title>{{provider}} sign-in (Hearth dev)</title>\(style)</head><body>
        <h1>Sign in to {{provider}}</h1>
        <p class="note">Hearth's built-in development provider. Any email works; the same email always gives the same account.
        {{#tenantNote}}Tenant: <code>{{tenantNote}}</code>.{{/tenantNote}}</p>
        {{#error}}<p class="error">{{error}}</p>{{/error}}
        <form method="post" action="{{action}}">
        <input type="hidden" name="request_id" value="{{requestId}}">
        <label for="email">Email</label><input id="email" type="email" name="email" value="{{email}}" required autofocus>
        <label for="name">Name</label><input id="name" type="text" name="name" value="{{name}}">
        <button type="submit" name="action" value="login">Sign in</button>
        <button type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
        </form></body></html>
        """

    static let messageTemplate = """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{title}}</title>\(style)</head><body>
        <h1>{{title}}</h1><p>{{message}}</p>{{#detail}}<p class="note">{{detail}}</p>{{/detail}}</body></html>
        """

    /// The dev IdP's login form.
    static func login(provider: String, action: String, requestId: String, email: String, name: String, tenant: String?, error: String?) -> String {
        library.render(
            ["provider": provider, "action": action, "requestId": requestId, "email": email, "name": name,
             "tenantNote": tenant ?? "", "error": error ?? ""] as [String: String],
            withTemplate: "login") ?? ""
    }

    /// A page with a title and a message.
    public static func message(title: String, message: String, detail: String? = nil) -> String {
        library.render(["title": title, "message": message, "detail": detail ?? ""] as [String: String], withTemplate: "message") ?? ""
    }

    /// An HTML response.
    public static func response(_ html: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status,
                 headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                           .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline';"],
                 body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
