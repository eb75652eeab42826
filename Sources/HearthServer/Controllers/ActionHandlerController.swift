import Foundation
import HTTPTypes
import HearthCore
import HearthPages
import HearthStore
import HearthWire
import Hummingbird
import NIOCore

/// `/__/auth/action?mode=…&oobCode=…&apiKey=…&continueUrl=…&lang=…`: the pages an email's action link opens
/// (Firebase's hosted action handler), plain HTML forms without JavaScript.
///
/// A GET never uses a code (mail scanners and link previews fetch links): it shows what the code is for and a
/// form; only that form's POST resets the password or applies the code. A used, unknown or expired code says so,
/// and where it makes sense the page offers a new link. `continueUrl` is linked (or, for `signIn`, followed) only
/// when the project allows it at the moment of the click.
///
/// CSRF: the forms post back here with the action code in a hidden field. The code itself is the credential (an
/// attacker holding it could call `accounts:resetPassword` directly), so a forged post gains nothing for a code
/// the attacker does not have; what must not happen is another site making a person's browser post these forms
/// (spending a code the browser has, or sending mail from it). Each form therefore carries a random token that
/// must equal the `hearth_action` cookie set with the page (HttpOnly, SameSite=Lax, path `/__/auth/action`):
/// another site can make a browser post here but can neither read nor set that cookie. (Lax rather than Strict:
/// email links are cross-site navigations, and Lax keeps the token a second open tab already uses.) An `Origin`
/// other than this server's and `Sec-Fetch-Site: cross-site`/`same-site` are refused as well; `Origin: null` is
/// accepted, because these pages' `Referrer-Policy: no-referrer` makes browsers send it with their own forms.
struct ActionHandlerController {
    let emailActions: EmailActionService
    var guardian: FormGuard { FormGuard(cookieName: "hearth_action", path: WirePaths.actionHandler, publicURL: emailActions.configuration.publicURL) }

    func register(on router: Router<HearthRequestContext>) {
        router.get(RouterPath(WirePaths.actionHandler)) { request, _ in try await show(request) }
        router.post(RouterPath(WirePaths.actionHandler)) { request, context in try await submit(request, address: context.clientAddress) }
    }

    /// A link's parameters, from the query or from the form that carries them back.
    struct Link {
        var mode: String
        var code: String
        var apiKey: String?
        var continueURL: String?
        var lang: String?
        var type: OobRequestType? { OobRequestType(mode: mode) }

        struct Damaged: Error {
            var message: String
        }

        static let maxParameterBytes = 4096

        init(_ value: (String) -> String?) throws(Damaged) {
            let names = ["mode", "oobCode", "apiKey", "continueUrl", "lang"]
            for name in names {
                guard let text = value(name) else { continue }
                if text.utf8.count > Self.maxParameterBytes { throw Damaged(message: "This link is damaged: its \(name) is too long.") }
                if text.contains("\0") { throw Damaged(message: "This link is damaged: it holds a NUL character.") }
            }
            guard let mode = value("mode"), !mode.isEmpty else { throw Damaged(message: "This link names no action (its mode is missing).") }
            guard OobRequestType(mode: mode) != nil || mode == "test" else {
                throw Damaged(message: "This link asks for an action this page does not know (mode “\(mode)”).")
            }
            guard let code = value("oobCode"), !code.isEmpty else {
                throw Damaged(message: "This link has no action code (oobCode). Copy the whole link from the email, or open it from the email again.")
            }
            func optional(_ name: String) -> String? { value(name).flatMap { $0.isEmpty ? nil : $0 } }
            self.mode = mode
            self.code = code
            apiKey = optional("apiKey")
            continueURL = optional("continueUrl")
            lang = optional("lang")
        }

        /// The hidden fields that carry the link back, and the form token.
        func hidden(_ token: String, _ extra: [Pages.Form.Field] = []) -> [Pages.Form.Field] {
            var fields = [Pages.Form.Field("mode", mode), Pages.Form.Field("oobCode", code)]
            for (name, value) in [("apiKey", apiKey), ("continueUrl", continueURL), ("lang", lang)] {
                if let value { fields.append(Pages.Form.Field(name, value)) }
            }
            return fields + [Pages.Form.Field(FormGuard.field, token)] + extra
        }
    }

    // MARK: Pages

    func show(_ request: Request) async throws -> Response {
        let token = guardian.token(request)
        let link: Link
        do {
            link = try Link(FormQuery(request.uri.query).get)
        } catch {
            return guardian.page(Pages.action(title: "This link does not work", message: error.message, tone: .error), status: .badRequest, token: nil)
        }
        return try await guarded(link, token) {
            guard let type = link.type else {
                return guardian.page(Pages.action(title: "This is a test link", message: "Test emails carry a sample link that does nothing. Real emails carry a working one.",
                                                  tone: .info), token: nil)
            }
            let (record, _) = try await check(link, type)
            switch type {
            case .passwordReset:
                return resetForm(link, record, token)
            case .emailSignIn:
                if let next = try await emailActions.allowedContinueURL(link.continueURL) {
                    // The app completes the sign-in with the code (signInWithEmailLink); this page only hands it over.
                    let location = ActionLinks.continuation(next, type: .emailSignIn, code: link.code, apiKey: link.apiKey, lang: link.lang ?? "en")
                    return Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store", Self.referrerPolicy: "no-referrer"])
                }
                return try await openInApp(link)
            case .verifyEmail, .verifyAndChangeEmail, .recoverEmail:
                let (title, message, button) = Self.confirmation(type, record)
                return guardian.page(Pages.action(
                    title: title, message: message,
                    forms: [Pages.Form(action: WirePaths.actionHandler, hidden: link.hidden(token), button: button)],
                    note: "Nothing changes until you press the button."), token: token)
            }
        }
    }

    func submit(_ request: Request, address: String) async throws -> Response {
        let form = try await ConsoleForm.read(request, limit: 32 * 1024)
        let token = guardian.token(request)
        guard guardian.admits(request, submitted: form[FormGuard.field]) else { return guardian.refusal(again: nil) }
        let link: Link
        do {
            link = try Link { form[$0] }
        } catch {
            return guardian.page(Pages.action(title: "This link does not work", message: error.message, tone: .error), status: .badRequest, token: nil)
        }
        return try await guarded(link, token) {
            if form["action"] == "resend" { return try await sendReset(to: form["email"], link, token, address: address) }
            guard let type = link.type, type != .emailSignIn else { return try await openInApp(link, status: .badRequest) }
            let (record, _) = try await check(link, type)
            let facts: [(String, String)]
            let message: String
            var forms: [Pages.Form] = []
            switch type {
            case .passwordReset:
                let password = form["newPassword"] ?? ""
                guard password == form["confirmPassword"] else {
                    return resetForm(link, record, token, error: "The two passwords differ. Type the same new password twice.")
                }
                do {
                    _ = try await emailActions.resetPassword(ResetPasswordRequest(oobCode: link.code, newPassword: password))
                } catch let error as HearthAPIError where error.code == .weakPassword {
                    return resetForm(link, record, token, error: (error.detail ?? "That password is too weak") + ".")
                }
                facts = [("Account", record.email)]
                message = "You can sign in with your new password now. Devices that were signed in to this account are signed out."
            case .verifyEmail:
                _ = try await emailActions.applyActionCode(link.code)
                facts = [("Email", record.email)]
                message = "Your email address is verified. You can go back to the app."
            case .verifyAndChangeEmail:
                _ = try await emailActions.applyActionCode(link.code)
                facts = [("New sign-in email", record.newEmail ?? "")]
                message = "Your account's sign-in email is changed. Sign in again with the new address on your other devices."
            case .recoverEmail, .emailSignIn:
                _ = try await emailActions.applyActionCode(link.code)
                facts = [("Sign-in email", record.email)]
                message = "Your account's sign-in email is \(record.email) again, and every device signed in to it is signed out.\n\n"
                    + "If you did not change it yourself, someone else may know your password: reset it now."
                forms = [Pages.Form(action: WirePaths.actionHandler, hidden: link.hidden(token, [.init("action", "resend"), .init("email", record.email)]),
                                    button: "Send me a password reset email")]
            }
            let title = ["resetPassword": "Password changed", "verifyEmail": "Email verified", "verifyAndChangeEmail": "Email changed"][type.mode] ?? "Email restored"
            return guardian.page(Pages.action(title: title, message: message, tone: .success, facts: facts, forms: forms,
                                              note: try await continueNote(link), links: try await continueLinks(link)), token: token)
        }
    }

    /// The code's record and account, when the code is this link's kind and still works (`INVALID_OOB_CODE`,
    /// `EXPIRED_OOB_CODE`, `USER_DISABLED` otherwise).
    func check(_ link: Link, _ type: OobRequestType) async throws -> (OobCodeRecord, UserRecord?) {
        let record = try await emailActions.peek(link.code, expecting: [type])
        guard type != .emailSignIn else { return (record, nil) }
        return (record, try await emailActions.account(of: record, email: type == .recoverEmail ? record.newEmail : nil))
    }

    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!

    static func confirmation(_ type: OobRequestType, _ record: OobCodeRecord) -> (String, String, String) {
        let newEmail = record.newEmail ?? ""
        switch type {
        case .verifyAndChangeEmail:
            return ("Change your sign-in email", "Your account's sign-in email will change from \(record.email) to \(newEmail). Devices signed in to it will be signed out.",
                    "Change my email to \(newEmail)")
        case .recoverEmail:
            return ("Restore your sign-in email", "Your account's sign-in email was changed from \(record.email) to \(newEmail). If you did not make this change, restore the old address.",
                    "Restore my email \(record.email)")
        default:
            return ("Verify your email", "Confirm that \(record.email) is your email address.", "Verify my email")
        }
    }

    func resetForm(_ link: Link, _ record: OobCodeRecord, _ token: String, error: String? = nil) -> Response {
        let policy = "At least \(PasswordHasher.minimumLength) characters, at most \(PasswordHasher.maximumByteCount) bytes."
        func input(_ id: String, _ label: String, _ name: String, hint: String?) -> Pages.Form.Input {
            Pages.Form.Input(id: id, label: label, name: name, type: "password", autocomplete: "new-password", minLength: PasswordHasher.minimumLength, hint: hint)
        }
        return guardian.page(Pages.action(
            title: "Choose a new password", message: "Choose a new password for your account.", facts: [("Account", record.email)], error: error,
            forms: [Pages.Form(action: WirePaths.actionHandler, hidden: link.hidden(token), inputs: [
                input("new-password", "New password", "newPassword", hint: policy), input("confirm-password", "New password again", "confirmPassword", hint: nil),
            ], button: "Save the new password")],
            note: "Devices signed in to this account will be signed out."), status: error == nil ? .ok : .badRequest, token: token)
    }

    /// An email-link sign-in without an allowed `continueUrl`: the app finishes it, not this page.
    func openInApp(_ link: Link, status: HTTPResponse.Status = .ok) async throws -> Response {
        guardian.page(Pages.action(
            title: "Open this link in the app",
            message: "To sign in, open this link on the device, and in the app or browser, where you asked for it: the app finishes the sign-in itself.",
            note: try await continueNote(link)), status: status, token: nil)
    }

    /// "Continue" to the link's `continueUrl`, when the project still allows it.
    func continueLinks(_ link: Link) async throws -> [Pages.Link] {
        try await emailActions.allowedContinueURL(link.continueURL).map { [Pages.Link("Continue", href: $0)] } ?? []
    }

    /// Why there is no "Continue" although the link had a `continueUrl`.
    func continueNote(_ link: Link) async throws -> String? {
        guard link.continueURL != nil, try await emailActions.allowedContinueURL(link.continueURL) == nil else { return nil }
        return "There is no way back to the app from this page: the address the link names is not one this project allows. Nothing is wrong with the action itself."
    }

    /// A new password-reset link (an expired or used reset link's form, the restored email's button). The same
    /// answer whether or not an account has the address (enumeration protection).
    func sendReset(to email: String?, _ link: Link, _ token: String, address: String) async throws -> Response {
        if let limiter = emailActions.limiter, let wait = await limiter.admit(.sendOobCode, address: address) {
            return guardian.page(Pages.action(title: "Too many emails", message: "Too many emails were asked for from your network. Wait \(wait) seconds, then try again.",
                                              tone: .error), status: .tooManyRequests, token: nil)
        }
        var request = SendOobCodeRequest(requestType: .passwordReset, email: email)
        request.continueUrl = try await emailActions.allowedContinueURL(link.continueURL)
        do {
            _ = try await emailActions.sendOobCode(request, admin: false, clientAddress: address)
        } catch let error as HearthAPIError where [.emailNotFound, .userDisabled].contains(error.code) {
            // Said the same way as a sent link.
        } catch let error as HearthAPIError where [.invalidEmail, .missingEmail].contains(error.code) {
            return problemPage("Get a new link", "Type the email address of your account: a link to choose a new password goes there.", link, token,
                               error: "That is not an email address.")
        } catch let error as HearthAPIError where [.resetPasswordExceedLimit, .tooManyAttempts].contains(error.code) {
            return guardian.page(Pages.action(title: "Too many emails", message: "Too many emails went to this address lately. Wait a while, then try again.",
                                              tone: .error), status: .tooManyRequests, token: nil)
        }
        let minutes = Int(emailActions.configuration.mail.lifetimes.reset / 60)
        return guardian.page(Pages.action(
            title: "Check your email",
            message: "If an account uses \(email ?? ""), an email with a link to choose a new password is on its way. The link works for \(minutes) minutes, once.",
            tone: .success), token: nil)
    }

    /// Runs `body`; a refused code or request becomes its page, an unreachable store a 503 page (never a 500).
    func guarded(_ link: Link, _ token: String, _ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let error as HearthAPIError {
            return codeProblem(error, link, token)
        } catch is StoreError {
            return guardian.page(Pages.action(title: "Try again in a moment", message: "The server cannot reach its database right now. Nothing was changed.",
                                              tone: .error), status: .serviceUnavailable, token: nil)
        }
    }

    /// The page of a code that does not work (or another refusal), with a way to a new link where there is one.
    func codeProblem(_ error: HearthAPIError, _ link: Link, _ token: String) -> Response {
        let (title, message): (String, String) = switch error.code {
        case .expiredOobCode: ("This link has expired", "Links in these emails work for a limited time, and this one's time is over.")
        case .invalidOobCode: ("This link was already used or is not valid",
                               "Each link works once, and only while the account still has the address it was sent to. If you used it already, what it did is done.")
        case .userDisabled: ("This account is disabled", "An administrator disabled this account; the link cannot be used.")
        default: ("That did not work", error.detail.map { $0.prefix(1).uppercased() + $0.dropFirst() } ?? error.description)
        }
        let advice: String? = switch link.type {
        case .passwordReset?, .recoverEmail?: nil
        case .verifyEmail?: "To get a new link, sign in to the app and ask for a new verification email."
        case .verifyAndChangeEmail?: "To get a new link, sign in to the app and ask to change your email again."
        case .emailSignIn?: "To get a new link, ask the app for a new sign-in link."
        case nil: nil
        }
        return problemPage(title, message + (advice.map { "\n\n" + $0 } ?? ""), link, token,
                           offerReset: error.code != .userDisabled && (link.type == .passwordReset || link.type == .recoverEmail))
    }

    func problemPage(_ title: String, _ message: String, _ link: Link, _ token: String, offerReset: Bool = true, error: String? = nil) -> Response {
        var forms: [Pages.Form] = []
        if offerReset {
            forms = [Pages.Form(action: WirePaths.actionHandler, hidden: link.hidden(token, [.init("action", "resend")]),
                                inputs: [.init(id: "email", label: "Email address for a new password-reset link", name: "email", type: "email", autocomplete: "email")],
                                button: "Send me a new link", secondary: true)]
        }
        return guardian.page(Pages.action(title: title, message: message, tone: .error, error: error, forms: forms),
                             status: .badRequest, token: forms.isEmpty ? nil : token)
    }
}

/// The double-submit token of a page's forms (see ``ActionHandlerController``): a cookie on `path` and the same
/// value in a hidden field of each form; and the pages' response headers.
struct FormGuard: Sendable {
    /// The forms' hidden field.
    static let field = "token"
    let cookieName: String
    let path: String
    let publicURL: PublicBaseURL

    /// The request's token (kept, so two open tabs both work), or a new one.
    func token(_ request: Request) -> String {
        if let value = request.cookies[cookieName]?.value, (32...64).contains(value.count),
           value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
            return value
        }
        return RandomID.token(byteCount: 24)
    }

    /// Whether a POST comes from this server's own page: the cookie and the form's token match, and the browser
    /// does not say it is another site's.
    func admits(_ request: Request, submitted: String?) -> Bool {
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin", site != "none" { return false }
        if let origin = request.headers[.origin], origin != "null", origin.lowercased() != ownOrigin { return false }
        guard let cookie = request.cookies[cookieName]?.value else { return false }
        return ConsoleAccess.tokensMatch(submitted, cookie)
    }

    /// `scheme://host[:port]` of the public URL.
    var ownOrigin: String {
        guard let components = URLComponents(string: publicURL.url), let scheme = components.scheme, let host = components.host else { return "" }
        return "\(scheme)://\(host)".lowercased() + (components.port.map { ":\($0)" } ?? "")
    }

    /// A refused form post.
    func refusal(again: String?) -> Response {
        page(Pages.action(title: "Request refused", message: "This form was not sent from this site's page, or your browser did not keep its cookie. Open the link from the email again; if that does not help, allow cookies for this site.",
                          tone: .error, links: again.map { [Pages.Link("Back", href: $0)] } ?? []), status: .forbidden, token: nil)
    }

    /// A page with the pages' security headers (no script, no framing, no referrer: the action code is in the
    /// address), and the token cookie when the page has forms.
    func page(_ html: String, status: HTTPResponse.Status = .ok, token: String?) -> Response {
        var response = Response(status: status, headers: [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", .contentSecurityPolicy: Pages.actionContentSecurityPolicy,
            ActionHandlerController.referrerPolicy: "no-referrer", HTTPField.Name("X-Frame-Options")!: "DENY",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        ], body: .init(byteBuffer: ByteBuffer(string: html)))
        if let token {
            response.setCookie(Cookie(name: cookieName, value: token, path: path, secure: publicURL.url.lowercased().hasPrefix("https://"),
                                      httpOnly: true, sameSite: .lax))
        }
        return response
    }
}
