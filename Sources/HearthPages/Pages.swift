import Foundation
import Mustache

/// Every HTML page Hearth shows (auth handler errors, the dev IdPs' forms, `/__dev/try`, `/`, the CLI's loopback
/// page): mustache templates with HTML-escaped values and one small stylesheet, readable on a phone. Pages never
/// show raw JSON or secrets.
public enum Pages {
    /// How a page reads: a result, a refusal, a question.
    public enum Tone: String, Sendable {
        case success, error, warning, info
    }

    /// A link shown under the message ("Try again", "Start over").
    public struct Link: Sendable, Equatable {
        public var label: String
        public var href: String

        public init(_ label: String, href: String) {
            self.label = label
            self.href = href
        }
    }

    /// The one stylesheet (inline: the pages' CSP allows inline styles only).
    public static let stylesheet = """
        :root{color-scheme:light dark;--fg:#1d1d1f;--muted:#5f6368;--bg:#fff;--card:#f6f7f9;--line:#d9dce1;--accent:#c2410c;\
        --ok:#15803d;--bad:#b91c1c;--warn:#a16207}
        @media (prefers-color-scheme:dark){:root{--fg:#e8e8ea;--muted:#a0a4ab;--bg:#141416;--card:#1f2023;--line:#34363b}}
        *{box-sizing:border-box}body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg);\
        margin:0;padding:1.5rem 1rem}
        main{max-width:32rem;margin:0 auto}header{font-weight:600;color:var(--accent);letter-spacing:.02em;margin-bottom:1rem}
        h1{font-size:1.35rem;line-height:1.3;margin:.2rem 0 .8rem}p{margin:.6rem 0}
        .card{background:var(--card);border:1px solid var(--line);border-left:4px solid var(--line);border-radius:8px;padding:1rem 1.1rem}
        .success{border-left-color:var(--ok)}.error{border-left-color:var(--bad)}.warning{border-left-color:var(--warn)}
        .note{color:var(--muted);font-size:.9rem;overflow-wrap:anywhere}ul{padding-left:1.2rem;margin:.5rem 0}li{margin:.2rem 0;overflow-wrap:anywhere}
        dl{display:grid;grid-template-columns:minmax(5rem,max-content) 1fr;gap:.25rem .8rem;margin:.6rem 0}dt{color:var(--muted)}\
        dd{margin:0;overflow-wrap:break-word;min-width:0}
        @media (max-width:26rem){dl{grid-template-columns:1fr;gap:0}dd{margin-bottom:.45rem}}
        label{display:block;margin:.9rem 0 .25rem;font-weight:500}
        input[type=text],input[type=email]{width:100%;padding:.6rem;font-size:1rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
        .actions{display:flex;gap:.6rem;flex-wrap:wrap;margin-top:1.1rem}
        button,.button{font-size:1rem;padding:.55rem 1.2rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:#fff;\
        text-decoration:none;cursor:pointer}
        button.secondary,.button.secondary{background:transparent;color:var(--accent)}
        .error-text{color:var(--bad)}code{font-size:.9em;overflow-wrap:anywhere}
        """

    static let head = """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · Hearth</title><style>{{{stylesheet}}}</style></head><body><main><header>Hearth{{#badge}} · {{badge}}{{/badge}}</header>
        """

    static let messageTemplate = """
        {{> head}}<section class="card {{tone}}"><h1>{{title}}</h1>{{#paragraphs}}<p>{{.}}</p>{{/paragraphs}}
        {{#hasFacts}}<dl>{{#facts}}<dt>{{label}}</dt><dd>{{value}}</dd>{{/facts}}</dl>{{/hasFacts}}
        {{#hasItems}}<ul>{{#items}}<li>{{.}}</li>{{/items}}</ul>{{/hasItems}}
        {{#detail}}<p class="note">{{detail}}</p>{{/detail}}
        {{#hasLinks}}<div class="actions">{{#links}}<a class="button{{#secondary}} secondary{{/secondary}}" href="{{href}}">{{label}}</a>{{/links}}</div>{{/hasLinks}}
        </section></main></body></html>
        """

    static let loginTemplate = """
        {{> head}}<section class="card"><h1>Sign in to {{provider}}</h1>
        <p class="note">Hearth's built-in development provider. Any email works; the same email always gives the same account.
        {{#tenantNote}}Tenant: <code>{{tenantNote}}</code>.{{/tenantNote}}</p>
        {{#error}}<p class="error-text">{{error}}</p>{{/error}}
        <form method="post" action="{{action}}">
        <input type="hidden" name="request_id" value="{{requestId}}">
        <label for="email">Email</label><input id="email" type="email" name="email" value="{{email}}" required autofocus>
        <label for="name">Name</label><input id="name" type="text" name="name" value="{{name}}">
        <div class="actions"><button type="submit" name="action" value="login">Sign in</button>
        <button class="secondary" type="submit" name="action" value="cancel" formnovalidate>Cancel</button></div>
        </form></section></main></body></html>
        """

    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        // The templates are constants: parsing cannot fail at run time.
        try! library.register(MustacheTemplate(string: head), named: "head")
        try! library.register(MustacheTemplate(string: messageTemplate), named: "message")
        try! library.register(MustacheTemplate(string: loginTemplate), named: "login")
        return library
    }()

    /// A page with a title, paragraphs, optional facts (label: value), a list, a note and links.
    public static func message(title: String, message: String, tone: Tone = .info, facts: [(String, String)] = [],
                               items: [String] = [], detail: String? = nil, links: [Link] = [], badge: String? = nil) -> String {
        // Empty texts are left out: mustache treats an empty string as true in a section.
        var context: [String: Any] = [
            "stylesheet": stylesheet, "title": title, "tone": tone.rawValue,
            "paragraphs": message.components(separatedBy: "\n\n").filter { !$0.isEmpty },
            "hasFacts": !facts.isEmpty, "facts": facts.map { ["label": $0.0, "value": $0.1] },
            "hasItems": !items.isEmpty, "items": items,
            "hasLinks": !links.isEmpty,
            "links": links.enumerated().map { ["label": $1.label, "href": $1.href, "secondary": $0 > 0] as [String: Any] },
        ]
        if let badge, !badge.isEmpty { context["badge"] = badge }
        if let detail, !detail.isEmpty { context["detail"] = detail }
        return library.render(context, withTemplate: "message") ?? ""
    }

    /// A dev identity provider's login form.
    public static func login(provider: String, action: String, requestId: String, email: String, name: String, tenant: String?,
                             error: String?) -> String {
        var context: [String: Any] = [
            "stylesheet": stylesheet, "title": "Sign in to \(provider)", "badge": "development provider", "provider": provider,
            "action": action, "requestId": requestId, "email": email, "name": name,
        ]
        if let tenant, !tenant.isEmpty { context["tenantNote"] = tenant }
        if let error, !error.isEmpty { context["error"] = error }
        return library.render(context, withTemplate: "login") ?? ""
    }

    /// The `Content-Security-Policy` the pages are served with: no scripts, inline styles only, forms to self.
    public static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'"
}
