import Foundation

/// Every HTML page Hearth shows (auth handler errors, the dev IdPs' forms, `/__dev/try`, `/`, the CLI's loopback
/// page): mustache templates (`Templates/*.mustache`) with HTML-escaped values and one small stylesheet, readable on
/// a phone. Pages never show raw JSON or secrets.
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

    /// The one stylesheet (`Templates/pages.css`; inline: the pages' CSP allows inline styles only).
    public static var stylesheet: String { Templates.pagesStylesheet }

    /// What `message.mustache` reads.
    struct MessageModel {
        struct Fact {
            let label: String
            let value: String
        }

        struct LinkModel {
            let label: String
            let href: String
            /// Every link after the first is drawn as a secondary button.
            let secondary: Bool
        }

        let stylesheet = Pages.stylesheet
        let title: String
        let tone: String
        let paragraphs: [String]
        let facts: [Fact]
        let items: [String]
        /// nil rather than empty: mustache treats an empty string as true in a section.
        let detail: String?
        let links: [LinkModel]
        let badge: String?
    }

    /// What `login.mustache` reads.
    struct LoginModel {
        let stylesheet = Pages.stylesheet
        let title: String
        let badge = "development provider"
        let provider: String
        let action: String
        let requestId: String
        let email: String
        let name: String
        let entraTenantNote: String?
        /// A line under the intro (Google's "This app asks for an account of …").
        let note: String?
        /// The form's one extra checkbox (Apple's "Hide My Email", Google's unverified address), if any.
        let checkboxName: String?
        let checkboxLabel: String?
        let error: String?
    }

    /// What `form-post.mustache` reads.
    struct FormPostModel {
        struct Field {
            let name: String
            let value: String
        }

        let stylesheet = Pages.stylesheet
        let title: String
        let badge = "development provider"
        let action: String
        let fields: [Field]
        let script: String
    }

    /// A page with a title, paragraphs, optional facts (label: value), a list, a note and links.
    public static func message(title: String, message: String, tone: Tone = .info, facts: [(String, String)] = [],
                               items: [String] = [], detail: String? = nil, links: [Link] = [], badge: String? = nil) -> String {
        Templates.render(MessageModel(
            title: title, tone: tone.rawValue, paragraphs: message.components(separatedBy: "\n\n").filter { !$0.isEmpty },
            facts: facts.map { MessageModel.Fact(label: $0.0, value: $0.1) }, items: items, detail: nonEmpty(detail),
            links: links.enumerated().map { MessageModel.LinkModel(label: $1.label, href: $1.href, secondary: $0 > 0) },
            badge: nonEmpty(badge)), PageTemplate.message.rawValue)
    }

    /// A checkbox on a dev identity provider's login form: the field's name and its label.
    public struct Checkbox: Sendable, Equatable {
        public var name: String
        public var label: String

        public init(name: String, label: String) {
            self.name = name
            self.label = label
        }
    }

    /// A dev identity provider's login form (every dev provider's: Microsoft, Yahoo, Apple, Google): email, name, an
    /// optional note and checkbox, "Sign in" and "Cancel".
    public static func login(provider: String, action: String, requestId: String, email: String, name: String, entraTenant: String?,
                             note: String? = nil, checkbox: Checkbox? = nil, error: String?) -> String {
        Templates.render(LoginModel(title: "Sign in to \(provider)", provider: provider, action: action, requestId: requestId,
                                    email: email, name: name, entraTenantNote: nonEmpty(entraTenant), note: nonEmpty(note),
                                    checkboxName: nonEmpty(checkbox?.name), checkboxLabel: checkbox?.label, error: nonEmpty(error)),
                         PageTemplate.login.rawValue)
    }

    /// A dev provider's `response_mode=form_post` answer: a form that POSTs `fields` to `action`, submitted at once by
    /// `script` (the page's only script; its hash goes in the Content-Security-Policy), with a Continue button for
    /// browsers without JavaScript.
    public static func formPost(title: String, action: String, fields: [(String, String)], script: String) -> String {
        Templates.render(FormPostModel(title: title, action: action, fields: fields.map { FormPostModel.Field(name: $0.0, value: $0.1) },
                                       script: script),
                         PageTemplate.formPost.rawValue)
    }

    /// `text`, or nil when it is nil or empty (an empty string would open its mustache section).
    static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    /// The `Content-Security-Policy` the pages are served with: no scripts, inline styles only, forms to self.
    public static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'"
}
