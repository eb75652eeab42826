import Foundation
import HearthWire

/// The email templates of the actions: Hearth's defaults (in the spirit of Firebase's) and the rendering of a
/// project's own (`notification.sendEmail`). Placeholders: `%LINK%`, `%EMAIL%`, `%NEW_EMAIL%`, `%DISPLAY_NAME%`,
/// `%APP_NAME%`. Values never become markup: in HTML they are escaped, in a subject control characters are dropped.
public enum EmailTemplates {
    /// The message kinds with a template.
    public enum Kind: String, Sendable, CaseIterable {
        case resetPassword, verifyEmail, changeEmail, verifyAndChangeEmail, emailSignIn

        /// The template kind of an action code's email (`RECOVER_EMAIL` codes go out in the "email changed" notice).
        public init(_ type: OobRequestType) {
            switch type {
            case .passwordReset: self = .resetPassword
            case .verifyEmail: self = .verifyEmail
            case .recoverEmail: self = .changeEmail
            case .verifyAndChangeEmail: self = .verifyAndChangeEmail
            case .emailSignIn: self = .emailSignIn
            }
        }

        /// The field of `notification.sendEmail` holding it.
        public var configField: String { rawValue + "Template" }

        /// A short human name (the console).
        public var title: String {
            switch self {
            case .resetPassword: "Password reset"
            case .verifyEmail: "Email address verification"
            case .changeEmail: "Email address change (to the old address)"
            case .verifyAndChangeEmail: "Verify a new email address"
            case .emailSignIn: "Email link sign-in"
            }
        }
    }

    /// The values put into a template.
    public struct Values: Sendable, Equatable {
        public var link: String
        public var email: String
        public var newEmail: String
        public var displayName: String
        public var appName: String

        public init(link: String, email: String, newEmail: String? = nil, displayName: String? = nil, appName: String) {
            self.link = link
            self.email = email
            self.newEmail = newEmail ?? ""
            // A person without a display name is greeted by address ("Hello ada@example.com,"), never "Hello ,".
            self.displayName = displayName.flatMap { $0.isEmpty ? nil : $0 } ?? email
            self.appName = appName
        }
    }

    /// A rendered message's parts.
    public struct Rendered: Sendable, Equatable {
        public var subject: String
        public var text: String
        public var html: String
    }

    /// Hearth's default template of a kind (plain text).
    public static func defaultTemplate(_ kind: Kind) -> AdminProjectConfig.EmailTemplate {
        let (subject, body): (String, String)
        switch kind {
        case .resetPassword:
            subject = "Reset your %APP_NAME% password"
            body = """
                Hello,

                Someone asked to reset the %APP_NAME% password of the account %EMAIL%. To choose a new password, open this link:

                %LINK%

                If you did not ask for this, ignore this message: your password stays as it is.

                The %APP_NAME% team
                """
        case .verifyEmail:
            subject = "Confirm your email address for %APP_NAME%"
            body = """
                Hello %DISPLAY_NAME%,

                Please confirm that %EMAIL% is your address by opening this link:

                %LINK%

                If you did not ask for this, you can ignore this message.

                The %APP_NAME% team
                """
        case .changeEmail:
            subject = "Your %APP_NAME% sign-in email was changed"
            body = """
                Hello %DISPLAY_NAME%,

                The sign-in email of your %APP_NAME% account was changed from %EMAIL% to %NEW_EMAIL%.

                If you did not make this change, open this link to change it back to %EMAIL%, then reset your password:

                %LINK%

                The %APP_NAME% team
                """
        case .verifyAndChangeEmail:
            subject = "Confirm your new email address for %APP_NAME%"
            body = """
                Hello %DISPLAY_NAME%,

                To make %NEW_EMAIL% the sign-in email of your %APP_NAME% account (now %EMAIL%), open this link:

                %LINK%

                If you did not ask for this, you can ignore this message.

                The %APP_NAME% team
                """
        case .emailSignIn:
            subject = "Sign in to %APP_NAME%"
            body = """
                Hello,

                Someone asked to sign in to %APP_NAME% as %EMAIL%. To sign in, open this link:

                %LINK%

                If you did not ask for this, you can ignore this message.

                The %APP_NAME% team
                """
        }
        return AdminProjectConfig.EmailTemplate(senderLocalPart: nil, senderDisplayName: nil, subject: subject, body: body,
                                                bodyFormat: "PLAIN_TEXT", replyTo: nil, customized: false)
    }

    /// The project's template of a kind, its unset fields taken from the default.
    public static func template(_ kind: Kind, in config: AdminProjectConfig.SendEmailConfig?) -> AdminProjectConfig.EmailTemplate {
        let fallback = defaultTemplate(kind)
        guard let own = stored(kind, in: config) else { return fallback }
        func value(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }
        let body = value(own.body)
        let result = AdminProjectConfig.EmailTemplate(
            senderLocalPart: value(own.senderLocalPart), senderDisplayName: value(own.senderDisplayName),
            subject: value(own.subject) ?? fallback.subject, body: body ?? fallback.body,
            bodyFormat: body == nil ? fallback.bodyFormat : (own.bodyFormat == "HTML" ? "HTML" : "PLAIN_TEXT"),
            replyTo: value(own.replyTo), customized: nil)
        var merged = result
        merged.customized = false
        merged.bodyFormat = merged.bodyFormat ?? "PLAIN_TEXT"
        let customized = merged != fallback
        merged.customized = customized
        return merged
    }

    static func stored(_ kind: Kind, in config: AdminProjectConfig.SendEmailConfig?) -> AdminProjectConfig.EmailTemplate? {
        switch kind {
        case .resetPassword: config?.resetPasswordTemplate
        case .verifyEmail: config?.verifyEmailTemplate
        case .changeEmail: config?.changeEmailTemplate
        case .verifyAndChangeEmail: config?.verifyAndChangeEmailTemplate
        case .emailSignIn: config?.emailSignInTemplate
        }
    }

    /// Sets (or with nil resets) one template of `config`.
    public static func set(_ template: AdminProjectConfig.EmailTemplate?, _ kind: Kind, in config: inout AdminProjectConfig.SendEmailConfig) {
        switch kind {
        case .resetPassword: config.resetPasswordTemplate = template
        case .verifyEmail: config.verifyEmailTemplate = template
        case .changeEmail: config.changeEmailTemplate = template
        case .verifyAndChangeEmail: config.verifyAndChangeEmailTemplate = template
        case .emailSignIn: config.emailSignInTemplate = template
        }
    }

    /// Why a template cannot be saved, or nil: sizes, a known body format, a body that holds `%LINK%`.
    public static func problem(with template: AdminProjectConfig.EmailTemplate) -> String? {
        if let subject = template.subject, subject.count > 200 || subject.contains(where: \.isNewline) {
            return "the subject must be one line of at most 200 characters"
        }
        if let body = template.body, !body.isEmpty {
            if body.utf8.count > 20_000 { return "the body must be at most 20000 bytes" }
            if !body.contains("%LINK%") { return "the body must contain %LINK% (the action link)" }
        }
        if let format = template.bodyFormat, !format.isEmpty, format != "PLAIN_TEXT", format != "HTML" {
            return "bodyFormat must be PLAIN_TEXT or HTML"
        }
        if let name = template.senderDisplayName, name.count > 100 || name.unicodeScalars.contains(where: { $0.value < 0x20 || $0 == "<" || $0 == ">" || $0 == "\"" }) {
            return "senderDisplayName must be a plain name of at most 100 characters"
        }
        if let local = template.senderLocalPart, !local.isEmpty,
           local.count > 64 || !local.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ".-_+".contains($0)) }) {
            return "senderLocalPart must be the part of an address before @ (letters, digits, . - _ +)"
        }
        if let replyTo = template.replyTo, !replyTo.isEmpty, EmailAddress.normalize(replyTo) == nil {
            return "replyTo must be an email address"
        }
        if template.body.map({ $0.contains("\0") }) == true || template.subject.map({ $0.contains("\0") }) == true {
            return "templates cannot hold NUL characters"
        }
        return nil
    }

    /// Renders a template with `values`.
    public static func render(_ template: AdminProjectConfig.EmailTemplate, _ values: Values) -> Rendered {
        let subjectValues = values.map { text in String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init)) }
        let subject = substitute(template.subject ?? "", subjectValues)
        let body = template.body ?? ""
        if template.bodyFormat == "HTML" {
            let html = substitute(body, values.map(htmlEscape))
            var text = plainText(fromHTML: html)
            if !text.contains(values.link) { text += "\n\n" + values.link }
            return Rendered(subject: subject, text: text, html: html)
        }
        let text = substitute(body, values)
        // The HTML part: the text escaped, paragraphs kept, the link a link.
        var escaped = values.map(htmlEscape)
        escaped.link = "<a href=\"\(htmlEscape(values.link))\">\(htmlEscape(values.link))</a>"
        let paragraphs = substitute(htmlEscape(body), escaped)
            .components(separatedBy: "\n\n")
            .map { "<p>" + $0.replacingOccurrences(of: "\n", with: "<br>\n") + "</p>" }
        let html = "<!doctype html>\n<html><body style=\"font-family: system-ui, sans-serif; line-height: 1.5\">\n"
            + paragraphs.joined(separator: "\n") + "\n</body></html>\n"
        return Rendered(subject: subject, text: text, html: html)
    }

    static func substitute(_ text: String, _ values: Values) -> String {
        // One pass, so a value that itself holds `%EMAIL%` is not substituted again.
        var output = ""
        var rest = Substring(text)
        let names: [(String, String)] = [("%LINK%", values.link), ("%EMAIL%", values.email), ("%NEW_EMAIL%", values.newEmail),
                                         ("%DISPLAY_NAME%", values.displayName), ("%APP_NAME%", values.appName)]
        while let percent = rest.firstIndex(of: "%") {
            output += rest[..<percent]
            let tail = rest[percent...]
            if let (name, value) = names.first(where: { tail.hasPrefix($0.0) }) {
                output += value
                rest = tail.dropFirst(name.count)
            } else {
                output += "%"
                rest = tail.dropFirst()
            }
        }
        output += rest
        return output
    }

    /// `&`, `<`, `>`, `"` and `'` escaped.
    public static func htmlEscape(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&#39;"
            default: output.append(character)
            }
        }
        return output
    }

    /// A readable plain-text form of a simple HTML body: line breaks for `<br>` and block ends, tags dropped,
    /// the common entities decoded.
    static func plainText(fromHTML html: String) -> String {
        var text = html
        for (pattern, replacement) in [("<br\\s*/?>", "\n"), ("</(p|div|h[1-6]|li|tr)>", "\n\n")] {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: [.regularExpression, .caseInsensitive])
        }
        text = text.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&nbsp;", " "), ("&amp;", "&")] {
            text = text.replacingOccurrences(of: entity, with: character)
        }
        text = text.replacingOccurrences(of: "\n{3,}", with: "\n\n", options: .regularExpression)
        return text.trimmingCharacters(in: .whitespacesAndNewlines) + "\n"
    }

    /// The sender of a message: the server's `mail.from`, with the template's display name and local part.
    public static func sender(base: String, template: AdminProjectConfig.EmailTemplate) -> String {
        var name: String?
        var address = base.trimmingCharacters(in: .whitespaces)
        if let open = address.lastIndex(of: "<"), address.hasSuffix(">") {
            let display = address[..<open].trimmingCharacters(in: .whitespaces)
            name = display.isEmpty ? nil : display.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            address = String(address[address.index(after: open)..<address.index(before: address.endIndex)])
        }
        if let local = template.senderLocalPart, !local.isEmpty, let at = address.lastIndex(of: "@") {
            address = local + address[at...]
        }
        if let display = template.senderDisplayName, !display.isEmpty { name = display }
        guard let name else { return address }
        return "\"\(name.replacingOccurrences(of: "\\", with: "").replacingOccurrences(of: "\"", with: ""))\" <\(address)>"
    }
}

extension EmailTemplates.Values {
    /// Every value transformed by `transform`.
    func map(_ transform: (String) -> String) -> Self {
        var copy = self
        copy.link = transform(link)
        copy.email = transform(email)
        copy.newEmail = transform(newEmail)
        copy.displayName = transform(displayName)
        copy.appName = transform(appName)
        return copy
    }
}
