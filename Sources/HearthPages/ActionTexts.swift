import Foundation

/// An action link's parameters (`mode`, `oobCode`, `apiKey`, `continueUrl`, `lang`, `tenantId`), from the query of
/// `/__/auth/action` or from the form that carries them back; refused whole when damaged.
public struct ActionLink: Sendable {
    public var mode: String
    public var code: String
    public var apiKey: String?
    public var continueURL: String?
    public var lang: String?
    /// The Identity Platform tenant the code was made in (the link's scope).
    public var tenantId: String?

    /// Why a link is not one (a 400 page).
    public struct Damaged: Error, Sendable {
        public var message: String
    }

    /// The longest parameter accepted.
    public static let maxParameterBytes = 4096

    /// Reads the parameters through `value`; `modes`: the actions the page knows.
    public init(modes: Set<String>, _ value: (String) -> String?) throws(Damaged) {
        for name in ["mode", "oobCode", "apiKey", "continueUrl", "lang", "tenantId"] {
            guard let text = value(name) else { continue }
            if text.utf8.count > Self.maxParameterBytes { throw Damaged(message: "This link is damaged: its \(name) is too long.") }
            if text.contains("\0") { throw Damaged(message: "This link is damaged: it holds a NUL character.") }
        }
        guard let mode = value("mode"), !mode.isEmpty else { throw Damaged(message: "This link names no action (its mode is missing).") }
        guard modes.contains(mode) else { throw Damaged(message: "This link asks for an action this page does not know (mode “\(mode)”).") }
        guard let code = value("oobCode"), !code.isEmpty else {
            throw Damaged(message: "This link has no action code (oobCode). Copy the whole link from the email, or open it from the email again.")
        }
        func optional(_ name: String) -> String? { value(name).flatMap { $0.isEmpty ? nil : $0 } }
        self.mode = mode
        self.code = code
        apiKey = optional("apiKey")
        continueURL = optional("continueUrl")
        lang = optional("lang")
        tenantId = optional("tenantId")
    }

    /// The hidden fields that carry the link back, the form's token (field `token`), then `extra`.
    public func hidden(_ token: String, _ extra: [Pages.Form.Field] = []) -> [Pages.Form.Field] {
        var fields = [Pages.Form.Field("mode", mode), Pages.Form.Field("oobCode", code)]
        for (name, value) in [("apiKey", apiKey), ("continueUrl", continueURL), ("lang", lang), ("tenantId", tenantId)] {
            if let value { fields.append(Pages.Form.Field(name, value)) }
        }
        return fields + [Pages.Form.Field("token", token)] + extra
    }
}

/// The words of the email action pages, by the link's `mode`.
public enum ActionTexts {
    /// A page's title, its paragraphs (blank-line separated) and, for a confirmation, its button.
    public struct Text: Sendable, Equatable {
        public var title: String
        public var message: String
        public var button: String = ""
    }

    /// The page of a code a button applies (`verifyEmail`, `verifyAndChangeEmail`, `recoverEmail`).
    public static func confirmation(mode: String, email: String, newEmail: String) -> Text {
        switch mode {
        case "verifyAndChangeEmail":
            Text(title: "Change your sign-in email",
                 message: "Your account's sign-in email will change from \(email) to \(newEmail). Devices signed in to it will be signed out.",
                 button: "Change my email to \(newEmail)")
        case "recoverEmail":
            Text(title: "Restore your sign-in email",
                 message: "Your account's sign-in email was changed from \(email) to \(newEmail). If you did not make this change, restore the old address.",
                 button: "Restore my email \(email)")
        default:
            Text(title: "Verify your email", message: "Confirm that \(email) is your email address.", button: "Verify my email")
        }
    }

    /// The page after the action (`email`: the address the account has now).
    public static func done(mode: String, email: String) -> Text {
        switch mode {
        case "resetPassword":
            Text(title: "Password changed", message: "You can sign in with your new password now. Devices that were signed in to this account are signed out.")
        case "verifyAndChangeEmail":
            Text(title: "Email changed", message: "Your account's sign-in email is now \(email). Sign in again with it on your other devices.")
        case "recoverEmail":
            Text(title: "Email restored", message: "Your account's sign-in email is \(email) again, and every device signed in to it is signed out.\n\n"
                 + "If you did not change it yourself, someone else may know your password: reset it now.")
        default:
            Text(title: "Email verified", message: "Your email address \(email) is verified. You can go back to the app.")
        }
    }

    /// The page of a code that does not work, by the refusal's code (`EXPIRED_OOB_CODE`, `INVALID_OOB_CODE`,
    /// `USER_DISABLED`, else `detail`), with the way to a new link for `mode`.
    public static func problem(_ code: String, mode: String?, detail: String) -> Text {
        var text = switch code {
        case "EXPIRED_OOB_CODE": Text(title: "This link has expired", message: "Links in these emails work for a limited time, and this one's time is over.")
        case "INVALID_OOB_CODE": Text(title: "This link was already used or is not valid",
                                      message: "Each link works once, and only while the account still has the address it was sent to. If you used it already, what it did is done.")
        case "USER_DISABLED": Text(title: "This account is disabled", message: "An administrator disabled this account; the link cannot be used.")
        default: Text(title: "That did not work", message: detail.prefix(1).uppercased() + detail.dropFirst())
        }
        let advice: String? = switch mode {
        case "verifyEmail": "To get a new link, sign in to the app and ask for a new verification email."
        case "verifyAndChangeEmail": "To get a new link, sign in to the app and ask to change your email again."
        case "signIn": "To get a new link, ask the app for a new sign-in link."
        default: nil
        }
        if let advice { text.message += "\n\n" + advice }
        return text
    }

    /// An email-link sign-in opened where the app cannot take it.
    public static let openInApp = Text(
        title: "Open this link in the app",
        message: "To sign in, open this link on the device, and in the app or browser, where you asked for it: the app finishes the sign-in itself.")

    /// Why a page has no "Continue" although its link had a `continueUrl`.
    public static let noContinue = "There is no way back to the app from this page: the address the link names is not one this project allows. Nothing is wrong with the action itself."

    /// The new password's rules as the reset page states them.
    public static func passwordPolicy(minimumLength: Int, maximumBytes: Int) -> String {
        "At least \(minimumLength) characters, at most \(maximumBytes) bytes."
    }

    /// After a new reset link was asked for (the same whether or not an account has the address).
    public static func resetSent(to email: String, minutes: Int) -> Text {
        Text(title: "Check your email",
             message: "If an account uses \(email), an email with a link to choose a new password is on its way. The link works for \(minutes) minutes, once.")
    }
}
