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

    typealias Link = ActionLink
    static let modes = Set(OobRequestType.allCases.map(\.mode) + ["test"])

    // MARK: Pages

    func show(_ request: Request) async throws -> Response {
        let token = guardian.token(request)
        let link: Link
        do {
            link = try Link(modes: Self.modes, FormQuery(request.uri.query).get)
        } catch {
            return guardian.page(Pages.action(title: "This link does not work", message: error.message, tone: .error), status: .badRequest, token: nil)
        }
        return try await guarded(link, token) {
            // The link's scope (a tenant's link is refused there, with the page that says why).
            let scope = try await emailActions.accounts.scopes.resolve(tenantId: link.tenantId, in: "the link")
            guard let type = link.type else {
                return guardian.page(Pages.action(title: "This is a test link", message: "Test emails carry a sample link that does nothing. Real emails carry a working one.",
                                                  tone: .info), token: nil)
            }
            let record = try await check(link, type, in: scope)
            switch type {
            case .passwordReset:
                return resetForm(link, record, token)
            case .emailSignIn:
                if let next = try await emailActions.allowedContinueURL(link.continueURL, in: scope) {
                    // The app completes the sign-in with the code (signInWithEmailLink); this page only hands it over.
                    let location = ActionLinks.continuation(next, type: .emailSignIn, code: link.code, apiKey: link.apiKey, lang: link.lang ?? "en")
                    return Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store", Self.referrerPolicy: "no-referrer"])
                }
                return try await openInApp(link, in: scope)
            case .verifyEmail, .verifyAndChangeEmail, .recoverEmail:
                let text = ActionTexts.confirmation(mode: type.mode, email: record.email, newEmail: record.newEmail ?? "")
                return guardian.page(Pages.action(title: text.title, message: text.message,
                                                  forms: [Pages.Form(action: WirePaths.actionHandler, hidden: link.hidden(token), button: text.button)],
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
            link = try Link(modes: Self.modes) { form[$0] }
        } catch {
            return guardian.page(Pages.action(title: "This link does not work", message: error.message, tone: .error), status: .badRequest, token: nil)
        }
        return try await guarded(link, token) {
            var scope = try await emailActions.accounts.scopes.resolve(tenantId: link.tenantId, in: "the link")
            scope.client = ClientFacts(ipAddress: address, userAgent: request.headers[.userAgent] ?? "", locale: link.lang)
            if form["action"] == "resend" { return try await sendReset(to: form["email"], link, token, address: address, in: scope) }
            guard let type = link.type, type != .emailSignIn else { return try await openInApp(link, status: .badRequest, in: scope) }
            let record = try await check(link, type, in: scope)
            var forms: [Pages.Form] = []
            if type == .passwordReset {
                let password = form["newPassword"] ?? ""
                guard password == form["confirmPassword"] else {
                    return resetForm(link, record, token, error: "The two passwords differ. Type the same new password twice.")
                }
                do {
                    _ = try await emailActions.resetPassword(ResetPasswordRequest(oobCode: link.code, newPassword: password), in: scope)
                } catch let error as HearthAPIError where error.code == .weakPassword {
                    return resetForm(link, record, token, error: (error.detail ?? "That password is too weak") + ".")
                }
            } else {
                _ = try await emailActions.applyActionCode(link.code, in: scope)
            }
            if type == .recoverEmail {
                forms = [Pages.Form(action: WirePaths.actionHandler, hidden: link.hidden(token, [.init("action", "resend"), .init("email", record.email)]),
                                    button: "Send me a password reset email")]
            }
            let text = ActionTexts.done(mode: type.mode, email: type == .verifyAndChangeEmail ? record.newEmail ?? "" : record.email)
            return guardian.page(Pages.action(title: text.title, message: text.message, tone: .success, facts: type == .passwordReset ? [("Account", record.email)] : [],
                                              forms: forms, note: try await continueNote(link, in: scope), links: try await continueLinks(link, in: scope)), token: token)
        }
    }

    /// The code's record and account, when the code is this link's kind and still works (`INVALID_OOB_CODE`,
    /// `EXPIRED_OOB_CODE`, `USER_DISABLED` otherwise).
    func check(_ link: Link, _ type: OobRequestType, in scope: Scope) async throws -> OobCodeRecord {
        let record = try await emailActions.peek(link.code, expecting: [type], in: scope)
        if type != .emailSignIn { _ = try await emailActions.account(of: record, email: type == .recoverEmail ? record.newEmail : nil, in: scope) }
        return record
    }

    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!

    func resetForm(_ link: Link, _ record: OobCodeRecord, _ token: String, error: String? = nil) -> Response {
        let policy = ActionTexts.passwordPolicy(minimumLength: PasswordHasher.minimumLength, maximumBytes: PasswordHasher.maximumByteCount)
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
    func openInApp(_ link: Link, status: HTTPResponse.Status = .ok, in scope: Scope) async throws -> Response {
        let text = ActionTexts.openInApp
        return guardian.page(Pages.action(title: text.title, message: text.message, note: try await continueNote(link, in: scope)), status: status, token: nil)
    }

    /// "Continue" to the link's `continueUrl`, when the project still allows it.
    func continueLinks(_ link: Link, in scope: Scope) async throws -> [Pages.Link] {
        try await emailActions.allowedContinueURL(link.continueURL, in: scope).map { [Pages.Link("Continue", href: $0)] } ?? []
    }

    /// Why there is no "Continue" although the link had a `continueUrl`.
    func continueNote(_ link: Link, in scope: Scope) async throws -> String? {
        guard link.continueURL != nil, try await emailActions.allowedContinueURL(link.continueURL, in: scope) == nil else { return nil }
        return ActionTexts.noContinue
    }

    /// A new password-reset link (an expired or used reset link's form, the restored email's button). The same
    /// answer whether or not an account has the address (enumeration protection).
    func sendReset(to email: String?, _ link: Link, _ token: String, address: String, in scope: Scope) async throws -> Response {
        let tooMany = guardian.page(Pages.action(title: "Too many emails", message: "Too many emails were asked for lately. Wait a while, then try again.",
                                                 tone: .error), status: .tooManyRequests, token: nil)
        if let limiter = emailActions.limiter, await limiter.admit(.sendOobCode, address: address) != nil { return tooMany }
        var request = SendOobCodeRequest(requestType: .passwordReset, email: email)
        request.continueUrl = try await emailActions.allowedContinueURL(link.continueURL, in: scope)
        do {
            _ = try await emailActions.sendOobCode(request, admin: false, clientAddress: address, in: scope)
        } catch let error as HearthAPIError where [.emailNotFound, .userDisabled].contains(error.code) {
            // Said the same way as a sent link.
        } catch let error as HearthAPIError where [.invalidEmail, .missingEmail].contains(error.code) {
            return problemPage("Get a new link", "Type the email address of your account: a link to choose a new password goes there.", link, token,
                               error: "That is not an email address.")
        } catch let error as HearthAPIError where [.resetPasswordExceedLimit, .tooManyAttempts].contains(error.code) {
            return tooMany
        }
        let text = ActionTexts.resetSent(to: email ?? "", minutes: Int(emailActions.configuration.mail.lifetimes.reset / 60))
        return guardian.page(Pages.action(title: text.title, message: text.message, tone: .success), token: nil)
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
        let text = ActionTexts.problem(error.code.rawValue, mode: link.mode, detail: error.detail ?? error.description)
        return problemPage(text.title, text.message, link, token,
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

extension ActionLink {
    /// The action the link's `mode` names (nil: the test email's sample link).
    var type: OobRequestType? { OobRequestType(mode: mode) }
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
