import Foundation
import HTTPTypes
import HearthCore
import HearthPages
import HearthStore
import HearthWire
import Hummingbird
import NIOCore

/// The web console at `/console`: server-rendered pages over ``AdminService``. Every change goes through the
/// admin service (validated and audited as `console:<administrator>`); every form carries the session's CSRF
/// token; pages never hold a client secret.
struct ConsoleController {
    let service: AdminService
    let access: ConsoleAccess
    let configuration: HearthServerConfiguration
    let store: any HearthStore
    /// Where each provider comes from (a stored configuration, or `--dev`'s built-in providers).
    let federation: FederationService
    /// The Templates page's test email and the mail banner.
    let emailActions: EmailActionService
    /// The user counts the pages show, made at most once a minute per scope (issue 41).
    let userCounts = ConsoleUserCounts()
    /// What the project's pages act on (overview, settings, templates, apps, keys, service accounts, audit log,
    /// tenants). Users and Sign-in method act on the scope the picker chose (``ConsoleScope``, `/console/t/<tenant>/…`).
    var projectScope: Scope { service.projectScope }

    /// Success messages shown after a redirect (`?ok=<key>`): fixed texts, so a link cannot make the console say anything.
    static let flashes: [String: String] = [
        "created": "User added.", "disabled": "Account disabled.", "enabled": "Account enabled.", "revoked": "Sessions revoked.",
        "claims": "Custom claims saved. They appear in ID tokens from the user's next sign-in or token refresh.",
        "deleted": "User deleted.", "provider": "Provider saved.", "toggled": "Provider updated.", "settings": "Settings saved.",
        "domains": "Authorized domains saved.", "key-removed": "Service-account key removed.", "logged-out": "You are logged out.", "app-added": "App registered.", "app-removed": "App removed.",
        "rotated": "A new signing key is published; it signs once the pre-publication period is over.",
        "template-saved": "Template saved.", "template-reset": "Template reset to the default.", "app-name": "App name saved.",
        "test-sent": "Test email sent, through the same outbox as real mail.",
        "mfa": "Two-step verification saved.",
        "mfa-removed": "Second factor removed. The user's sessions ended and they were told by email.",
        "mfa-removed-all": "Every second factor removed. The user's sessions ended and they were told by email.",
        "passkeys": "Passkey setting saved.",
        "passkeys-rp-id": "Passkey setting saved. The rp id changed: passkeys registered for the old one no longer sign in.",
        "passkey-removed": "Passkey removed: it no longer signs in to this account. The user's current sessions continue (Revoke sessions ends them).",
        "tenant-created": "Tenant created. Pick it in the scope picker (or use the buttons below) to add its users and sign-in providers.",
        "tenant-saved": "Tenant saved.", "tenant-deleted": "Tenant deleted, with its users and its providers.",
        "hooks": "Blocking functions saved. They are called from the next sign-up, sign-in or email on.",
        "hooks-unchanged": "Nothing changed: the blocking functions are as they were.",
        "phone": "Phone settings saved.", "test-number": "Test number saved: it signs in with its code and is never sent an SMS.",
        "test-number-removed": "Test number removed.", "sms-regions": "Region policy saved.", "sms-limits": "Budget, limits and app verification saved.",
    ]

    static let pageSize = 25

    func register(on router: Router<HearthRequestContext>) {
        router.get("/console/console.js") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "no-cache"],
                     body: .init(byteBuffer: ByteBuffer(string: ConsolePages.script)))
        }
        router.get("/console/login") { request, _ in try await loginPage(request) }
        router.post("/console/login") { request, context in try await login(request, address: context.clientAddress) }
        router.get(RouterPath(ConsoleAccess.loginLinkPath)) { request, _ in try await loginWithLink(request) }
        router.post("/console/logout") { request, _ in
            try await action(request) { session, _ in
                try await access.endSession(request)
                try await service.audit(principal(session), "console.logout", target: session.adminName, in: projectScope)
                var response = redirect("/console/login?ok=logged-out")
                response.setCookie(access.expired(ConsoleAccess.cookieName))
                return response
            }
        }

        page(router, "/console", title: "Overview") { request, session in try await overview(request, session) }
        scopedPage(router, "/users", title: "Users") { request, session, target in try await users(request, session, in: target) }
        scopedPage(router, "/user", title: "User", nav: "/users") { request, session, target in try await user(request, session, in: target) }
        scopedPage(router, "/user/delete", title: "Delete user", nav: "/users") { request, _, target in
            let info = try await lookup(FormQuery(request.uri.query).get("uid"), in: target)
            return ConfirmDeletePage(uid: info.localId, identifier: identifier(info), backHref: userHref(info.localId, in: target))
        }
        scopedAction(router, "/users") { session, form, target in
            let created = try await service.createUser(AdminCreateUserRequest(email: form.text("email"), password: form["password"]),
                                                       by: principal(session), in: target.scope)
            return redirect(userHref(created.localId, in: target) + "&ok=created")
        }
        for (name, flash) in [("disable", "disabled"), ("enable", "enabled"), ("revoke", "revoked"), ("claims", "claims")] {
            scopedAction(router, "/user/\(name)") { session, form, target in
                let uid = try AdminService.checkLocalId(form["uid"])
                var update = AdminUpdateRequest(localId: uid)
                switch name {
                case "disable": update.disableUser = true
                case "enable": update.disableUser = false
                case "revoke": update.validSince = FlexibleInt(Int64(configuration.clock.now().timeIntervalSince1970))
                default: update.customAttributes = form["claims"]?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                }
                _ = try await service.update(update, by: principal(session), in: target.scope)
                return redirect(userHref(uid, in: target) + "&ok=\(flash)")
            }
        }
        scopedAction(router, "/user/delete") { session, form, target in
            _ = try await service.delete(AdminDeleteRequest(localId: try AdminService.checkLocalId(form["uid"])), by: principal(session), in: target.scope)
            return redirect(target.base + "/users?ok=deleted")
        }

        scopedPage(router, "/providers", title: "Sign-in method") { _, _, target in try await providers(in: target) }
        scopedPage(router, "/provider", title: "Configure provider", nav: "/providers") { request, _, target in
            let id = FormQuery(request.uri.query).get("id") ?? ""
            if id == "apple.com" { return try await appleProvider(in: target) }
            return try await provider(id, in: target)
        }
        scopedAction(router, "/providers/builtin") { session, form, target in
            try await toggle(form["provider"] ?? "", enabled: form.flag("enabled"), by: principal(session), in: target)
            return redirect(target.base + "/providers?ok=toggled")
        }
        scopedAction(router, "/provider/test") { session, form, target in
            let page = try await providerTest(form["provider"] ?? "", in: target)
            return html(await render(page, title: "Test provider", current: "/console/providers", session: session, in: target))
        }
        scopedAction(router, "/provider") { session, form, target in
            do {
                try await saveProvider(form, by: principal(session), in: target)
            } catch let error as HearthAPIError where error.httpStatus < 500 {
                // The form again, with what was typed and the error beside its field.
                let page: any ConsolePage
                if form["provider"] == "apple.com" {
                    page = try await appleFormAgain(form, error: error, in: target)
                } else {
                    page = try await providerFormAgain(form, error: error, in: target)
                }
                return html(await render(page, title: "Configure provider", current: "/console/providers", session: session, in: target),
                            status: .badRequest)
            }
            return redirect(target.base + "/providers?ok=provider")
        }
        registerTenants(on: router)

        page(router, "/console/settings", title: "Settings") { _, session in try await settings(session) }
        registerSecondFactors(on: router)
        registerBlockingFunctions(on: router)
        registerPhone(on: router)
        registerPasskeys(on: router)
        router.post("/console/settings") { request, _ in
            try await action(request) { session, form in
                try await service.updateProjectSettings([
                    .allowDuplicateEmails(form["linking"] == "multiple"),
                    .emailEnumerationProtection(form.flag("enumeration")),
                    .userSignupDisabled(!form.flag("signup")),
                    .userDeletionDisabled(!form.flag("deletion")),
                ], by: principal(session), in: projectScope)
                return redirect("/console/settings?ok=settings")
            }
        }
        router.post("/console/settings/domains") { request, _ in
            try await action(request) { session, form in
                let scope = projectScope
                var domains = try await scope.config().authorizedDomains
                if let add = form.text("add")?.lowercased() {
                    guard AdminService.isDomain(add), add.contains(".") || add == "localhost" else {
                        throw HearthAPIError(.invalidConfig, "'\(add)' is not a domain name (e.g. app.example.com)")
                    }
                    if !domains.contains(add) { domains.append(add) }
                }
                if let remove = form.text("remove") { domains.removeAll { $0 == remove } }
                try await service.updateProjectSettings([.authorizedDomains(domains)], by: principal(session), in: scope)
                return redirect("/console/settings?ok=domains")
            }
        }

        registerTemplates(on: router)
        page(router, "/console/apps", title: "Apps") { _, _ in try await apps() }
        router.post("/console/apps") { request, _ in
            try await action(request) { session, form in
                let app: AppRegistration
                if form["kind"] == "desktop" {
                    let id = form.text("id") ?? ""
                    app = AppRegistration(id: id, kind: .desktop, name: id)
                } else {
                    let bundleId = form.text("bundleId") ?? ""
                    app = AppRegistration(id: "apple:\(bundleId)", kind: .apple, bundleId: bundleId, appId: form.text("appId"),
                                          clientId: form.text("clientId"), teamId: form.text("teamId"))
                }
                try await service.registerApp(app, by: principal(session))
                return redirect("/console/apps?ok=app-added")
            }
        }
        router.post("/console/apps/remove") { request, _ in
            try await action(request) { session, form in
                try await service.removeApp(id: form["id"] ?? "", by: principal(session))
                return redirect("/console/apps?ok=app-removed")
            }
        }
        page(router, "/console/service-accounts", title: "Service accounts") { _, _ in try await serviceAccounts() }
        router.post("/console/service-accounts") { request, _ in
            try await action(request) { session, form in
                let (key, file) = try await service.createServiceAccountKey(clientEmail: form.text("email") ?? "", by: principal(session))
                let local = key.clientEmail.split(separator: "@").first.map(String.init) ?? "service-account"
                let filename = "\(projectScope.projectId)-\(local)-\(key.keyId.prefix(8)).json".filter { $0.isLetter || $0.isNumber || "-_.".contains($0) }
                return Response(status: .ok, headers: [
                    .contentType: "application/json", .cacheControl: "no-store",
                    .contentDisposition: "attachment; filename=\"\(filename)\"",
                ], body: .init(byteBuffer: ByteBuffer(bytes: file)))
            }
        }
        router.post("/console/service-accounts/remove") { request, _ in
            try await action(request) { session, form in
                try await service.removeServiceAccountKey(clientEmail: form["email"] ?? "", keyId: form["keyId"] ?? "", by: principal(session))
                return redirect("/console/service-accounts?ok=key-removed")
            }
        }
        page(router, "/console/keys", title: "Signing keys") { _, _ in try await signingKeys() }
        router.post("/console/keys/rotate") { request, _ in
            try await action(request) { session, _ in
                _ = try await service.rotateSigningKey(by: principal(session))
                return redirect("/console/keys?ok=rotated")
            }
        }
        page(router, "/console/audit", title: "Audit log") { request, _ in
            let log = try await service.auditLog(pageSize: 50, pageToken: FormQuery(request.uri.query).get("before"), in: projectScope)
            return AuditPage(
                entries: log.entries.map {
                    AuditPage.Entry(time: Self.display($0.time), actor: $0.actor, action: $0.action, target: $0.target, detail: $0.detail ?? "")
                },
                next: log.nextPageToken.map { "/console/audit?before=\($0)" })
        }
    }

    // MARK: Plumbing

    func principal(_ session: ConsoleSession) -> AdminPrincipal { AdminPrincipal(actor: "console:\(session.adminName)") }

    func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-store", .contentSecurityPolicy: ConsolePages.contentSecurityPolicy,
            HTTPField.Name("X-Content-Type-Options")!: "nosniff", HTTPField.Name("Referrer-Policy")!: "no-referrer",
        ], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// Where a request without a live session goes: the login page, saying why when a session cookie was sent.
    func toLogin(_ request: Request) -> Response {
        let hadCookie = !(request.cookies[ConsoleAccess.cookieName]?.value ?? "").isEmpty
        var response = redirect(hadCookie ? "/console/login?expired=1" : "/console/login")
        if hadCookie { response.setCookie(access.expired(ConsoleAccess.cookieName)) }
        return response
    }

    /// A signed-in page: `body` returns its view model.
    func page(_ router: Router<HearthRequestContext>, _ path: String, title: String, nav: String? = nil,
              _ body: @escaping @Sendable (Request, ConsoleSession) async throws -> any ConsolePage) {
        router.get(RouterPath(path)) { request, _ -> Response in
            guard let session = try await access.session(request) else { return toLogin(request) }
            let flash = FormQuery(request.uri.query).get("ok").flatMap { Self.flashes[$0] }
            do {
                let page = try await body(request, session)
                return html(await render(page, title: title, current: nav ?? path, session: session, flash: flash))
            } catch let error as HearthAPIError {
                return await errorPage(error, session: session, status: .init(code: error.httpStatus))
            }
        }
    }

    /// A signed-in form post: the session and its CSRF token are checked before `body` runs.
    func action(_ request: Request, _ body: (ConsoleSession, ConsoleForm) async throws -> Response) async throws -> Response {
        guard let session = try await access.session(request) else { return toLogin(request) }
        let form = try await ConsoleForm.read(request)
        guard ConsoleAccess.tokensMatch(form["csrf"], session.csrfToken) else {
            return await errorPage(HearthAPIError(.insufficientPermission, "this form was not sent by a console page of your session (missing or wrong CSRF token); reload the page and try again"),
                             session: session, status: .forbidden, title: "Request refused")
        }
        do {
            return try await body(session, form)
        } catch let error as HearthAPIError {
            return await errorPage(error, session: session, status: .init(code: error.httpStatus))
        } catch let error as StoreError {
            // The one mapping of store errors (an email taken, a user gone, the database away) the API answers with.
            let refusal = HearthAPIError(error)
            return await errorPage(refusal, session: session, status: .init(code: refusal.httpStatus))
        }
    }

    func errorPage(_ error: HearthAPIError, session: ConsoleSession, status: HTTPResponse.Status, title: String = "That did not work",
                   in target: ConsoleScope? = nil) async -> Response {
        html(await render(BlankPage(), title: title, current: nil, session: session, in: target, error: error.description), status: status)
    }

    /// A signed-in page in the layout, with the scope picker (`target`: the scope a Users or Sign-in method page
    /// shows; nil on the project's pages).
    func render(_ page: some ConsolePage, title: String, current: String?, session: ConsoleSession, in target: ConsoleScope? = nil,
                flash: String? = nil, error: String? = nil) async -> String {
        ConsolePages.render(page, title: title, projectId: projectScope.projectId, current: current, adminName: session.adminName,
                            csrf: session.csrfToken, flash: flash, error: error, scope: await scopeBar(target, current: current))
    }

    static func display(_ iso: String) -> String {
        guard iso.count >= 16 else { return iso }
        return String(iso.prefix(16)).replacingOccurrences(of: "T", with: " ")
    }

    static func display(_ date: Date) -> String { display(date.formatted(.iso8601)) }

    /// A display time from a wire millisecond string.
    static func display(milliseconds: String?) -> String {
        guard let milliseconds, let value = Double(milliseconds), value > 0 else { return "—" }
        return display(Date(timeIntervalSince1970: value / 1000))
    }

    func userHref(_ uid: String, in target: ConsoleScope) -> String {
        target.base + "/user?uid=" + (uid.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    }

    func identifier(_ user: UserInfo) -> String {
        user.email ?? user.phoneNumber ?? user.providerUserInfo.first?.email ?? (user.providerUserInfo.isEmpty ? "Anonymous" : user.providerUserInfo[0].providerId)
    }

    /// The user `uid` of the page's scope: a user of another tenant (or of the project) is `USER_NOT_FOUND` here.
    func lookup(_ uid: String?, in target: ConsoleScope) async throws -> UserInfo {
        let uid = try AdminService.checkLocalId(uid)
        guard let info = try await service.lookup(AdminLookupRequest(localId: [uid]), in: target.scope).users?.first else {
            throw HearthAPIError(.userNotFound, "no user has the UID \(uid)" + (target.tenant.map { " in tenant \($0.id)" } ?? " in the project (outside any tenant)"))
        }
        return info
    }

    // MARK: Signing in

    func loginPage(_ request: Request, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        if error == nil, try await access.session(request) != nil { return redirect("/console") }
        let token = RandomID.token(byteCount: 24)
        var message = error
        if message == nil, FormQuery(request.uri.query).get("expired") != nil {
            message = "Your console session has ended (idle for more than \(Int(configuration.consoleIdleTimeout / 60)) minutes, or logged out elsewhere). Sign in again."
        }
        let flash = FormQuery(request.uri.query).get("ok").flatMap { Self.flashes[$0] }
        var response = html(ConsolePages.render(ConsoleLoginPage(loginCsrf: token), title: "Sign in to the console", projectId: projectScope.projectId,
                                                current: nil, adminName: nil, csrf: nil, flash: flash, error: message), status: status)
        response.setCookie(access.loginCookie(token))
        return response
    }

    func login(_ request: Request, address: String) async throws -> Response {
        let form = try await ConsoleForm.read(request)
        guard let expected = request.cookies[ConsoleAccess.loginCookieName]?.value, ConsoleAccess.tokensMatch(form["csrf"], expected) else {
            return try await loginPage(request, error: "The sign-in form expired or was not sent from this console (CSRF check). Try again.", status: .forbidden)
        }
        let name = form.text("name") ?? ""
        guard let attempt = try await access.throttle.reserve(account: name, address: address) else {
            return try await loginPage(request, error: "Too many failed sign-ins. Wait \(Int(configuration.throttle.window / 60)) minutes, or use a login link (hearth console login-link).",
                                       status: .tooManyRequests)
        }
        guard !name.isEmpty, let password = form["password"], try await access.verifyAdmin(name: name, password: password) else {
            return try await loginPage(request, error: "Wrong administrator name or password.", status: .unauthorized)
        }
        try await access.throttle.succeeded(attempt)
        return try await signedIn(as: name)
    }

    func loginWithLink(_ request: Request) async throws -> Response {
        guard let token = FormQuery(request.uri.query).get("token"), !token.isEmpty, token.count < 200,
              let name = try await store.takeConsoleLoginLink(tokenHash: ConsoleAccess.hash(token), now: configuration.clock.now()) else {
            return try await loginPage(request, error: "This login link was used already or has expired. Run `hearth console login-link` for a fresh one.",
                                       status: .unauthorized)
        }
        // A page that moves on by itself rather than a redirect: a link opened from another site (a chat, a mail
        // page) would otherwise reach /console in a cross-site redirect chain, without the SameSite=Strict cookie.
        return try await signedIn(as: name, viaPage: true)
    }

    func signedIn(as name: String, viaPage: Bool = false) async throws -> Response {
        let token = try await access.startSession(adminName: name)
        try await service.audit(AdminPrincipal(actor: "console:\(name)"), "console.login", target: name, in: projectScope)
        var response = viaPage
            ? html(ConsolePages.render(SignedInPage(adminName: name), title: "Signed in", projectId: projectScope.projectId, current: nil,
                                       adminName: nil, csrf: nil))
            : redirect("/console")
        response.setCookie(access.sessionCookie(token))
        response.setCookie(access.expired(ConsoleAccess.loginCookieName))
        return response
    }
}
