import Foundation

// The email action pages (`/__/auth/action`) and the dev mailbox (`/__dev/mail`): the same look as every other
// page (`head.mustache`, `pages.css`), plain HTML forms that work without JavaScript.

extension Pages {
    /// A form on a page: where it posts, its hidden fields, the fields a person fills in, and its button.
    public struct Form: Sendable {
        /// A hidden `name=value` the form sends back.
        public struct Field: Sendable {
            public let name: String
            public let value: String

            public init(_ name: String, _ value: String) {
                self.name = name
                self.value = value
            }
        }

        /// A labelled input (always `required`).
        public struct Input: Sendable {
            public let id: String
            public let label: String
            public let name: String
            /// `password`, `email`, `text`.
            public let type: String
            /// `new-password`, `email`, … (password managers read it).
            public let autocomplete: String
            /// nil: empty.
            public let value: String?
            /// The least number of characters the browser asks for (the server checks again).
            public let minLength: String?
            /// A line under the input (the password policy).
            public let hint: String?

            public init(id: String, label: String, name: String, type: String, autocomplete: String, value: String? = nil,
                        minLength: Int? = nil, hint: String? = nil) {
                self.id = id
                self.label = label
                self.name = name
                self.type = type
                self.autocomplete = autocomplete
                self.value = nonEmpty(value)
                self.minLength = minLength.map(String.init)
                self.hint = nonEmpty(hint)
            }
        }

        public let action: String
        public let hidden: [Field]
        public let inputs: [Input]
        public let button: String
        /// Drawn as a secondary button.
        public let secondary: Bool

        public init(action: String, hidden: [Field], inputs: [Input] = [], button: String, secondary: Bool = false) {
            self.action = action
            self.hidden = hidden
            self.inputs = inputs
            self.button = button
            self.secondary = secondary
        }
    }

    /// What `action.mustache` reads.
    struct ActionModel {
        let stylesheet = Pages.stylesheet
        let title: String
        let tone: String
        let paragraphs: [String]
        let facts: [MessageModel.Fact]
        let error: String?
        let forms: [Form]
        let note: String?
        let links: [MessageModel.LinkModel]
        let badge: String?
    }

    /// An action page: a title, paragraphs (split at blank lines), facts, an error beside the forms, forms, a note
    /// and links.
    public static func action(title: String, message: String, tone: Tone = .info, facts: [(String, String)] = [], error: String? = nil,
                              forms: [Form] = [], note: String? = nil, links: [Link] = [], badge: String? = nil) -> String {
        Templates.render(ActionModel(
            title: title, tone: tone.rawValue, paragraphs: message.components(separatedBy: "\n\n").filter { !$0.isEmpty },
            facts: facts.map { MessageModel.Fact(label: $0.0, value: $0.1) }, error: nonEmpty(error), forms: forms, note: nonEmpty(note),
            links: links.enumerated().map { MessageModel.LinkModel(label: $1.label, href: $1.href, secondary: $0 > 0) },
            badge: nonEmpty(badge)), PageTemplate.action.rawValue)
    }

    /// One message of the dev mailbox.
    public struct DevMail: Sendable {
        public let time: String
        public let from: String
        public let to: String
        public let subject: String
        public let kind: String
        /// The action link it carries, if any.
        public let link: String?
        public let text: String
        /// The HTML part: shown escaped, and rendered only inside a sandboxed `iframe` (`srcdoc`, no scripts, no
        /// same origin).
        public let html: String

        public init(time: String, from: String, to: String, subject: String, kind: String, link: String?, text: String, html: String) {
            self.time = time
            self.from = from
            self.to = to
            self.subject = subject
            self.kind = kind
            self.link = nonEmpty(link)
            self.text = text
            self.html = html
        }
    }

    /// What the dev sinks' pages read (`dev-mail.mustache`, `dev-sms.mustache`): the messages and the "Clear" form
    /// (none when there is nothing to clear).
    struct DevSinkModel<Message> {
        let stylesheet = Pages.stylesheet
        let title: String
        let summary: String
        let clear: Form?
        let messages: [Message]
        let badge: String

        /// Renders `template` with `messages`.
        static func render(_ template: PageTemplate, title: String, messages: [Message], summary: String, clear: Form) -> String {
            Templates.render(DevSinkModel(title: title, summary: summary, clear: messages.isEmpty ? nil : clear, messages: messages,
                                          badge: title.lowercased()), template.rawValue)
        }
    }

    /// `/__dev/mail`: the messages, newest first, and a form (`clear`) that empties the mailbox.
    public static func devMailbox(_ messages: [DevMail], summary: String, clear: Form) -> String {
        DevSinkModel.render(.devMail, title: "Dev mailbox", messages: messages, summary: summary, clear: clear)
    }

    /// The action pages' `Content-Security-Policy`: the pages' own, and forms post to this server only.
    public static let actionContentSecurityPolicy = contentSecurityPolicy + "; form-action 'self'"
}
