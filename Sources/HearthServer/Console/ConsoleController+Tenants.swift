import Foundation
import HTTPTypes
import HearthCore
import HearthPages
import HearthStore
import HearthWire
import Hummingbird

/// Where a Users or Sign-in method page acts: the project (`/console/users`) or one tenant
/// (`/console/t/<tenant id>/users`). The tenant is in the address, so every link and form of the page carries it
/// (``base``), and each request resolves it again: a user or provider of another tenant is not found in this one.
struct ConsoleScope: Sendable {
    /// The scope the admin service acts in (its store is bound to the tenant).
    let scope: Scope
    /// `/console` for the project, `/console/t/<tenant id>` for a tenant.
    let base: String

    /// The tenant, nil for the project.
    var tenant: TenantRecord? { scope.tenant }

    /// The address prefix of a tenant's scoped pages.
    static func base(tenantId: String) -> String { "/console/t/\(tenantId)" }
}

/// The Tenants page (list, create, edit, delete through ``AdminService``'s tenant functions: the API's checks and
/// its `tenants.*` audit entries), the scope picker, and the registration of the pages that follow it.
extension ConsoleController {
    /// How many tenants the picker lists (the Tenants page lists every one).
    static let pickerLimit = 100
    /// Tenants per page on the Tenants page.
    static let tenantsPageSize = 50

    // MARK: Scoped pages

    /// A Users or Sign-in method page, at `/console<path>` (the project) and `/console/t/{tenant}<path>`; `nav` is
    /// its section (`/users`). An unknown tenant is a 404 page saying so, a tenant turned off (`disableAuth`) a 403.
    func scopedPage(_ router: Router<HearthRequestContext>, _ path: String, title: String, nav: String? = nil,
                    _ body: @escaping @Sendable (Request, ConsoleSession, ConsoleScope) async throws -> any ConsolePage) {
        for prefix in ["/console", "/console/t/{tenant}"] {
            router.get(RouterPath(prefix + path)) { request, context -> Response in
                guard let session = try await access.session(request) else { return toLogin(request) }
                let target: ConsoleScope
                do {
                    target = try await consoleScope(context)
                } catch let refusal as ScopeRefusal {
                    return await errorPage(refusal.error, session: session, status: refusal.status, title: refusal.title)
                }
                let flash = FormQuery(request.uri.query).get("ok").flatMap { Self.flashes[$0] }
                do {
                    let page = try await body(request, session, target)
                    return html(await render(page, title: title, current: "/console" + (nav ?? path), session: session, in: target, flash: flash))
                } catch let error as HearthAPIError {
                    return await errorPage(error, session: session, status: .init(code: error.httpStatus), in: target)
                }
            }
        }
    }

    /// A form post of a Users or Sign-in method page, at both addresses: the session and CSRF token are checked
    /// first (``action(_:_:)``), then the tenant is resolved, then `body` runs in its scope.
    func scopedAction(_ router: Router<HearthRequestContext>, _ path: String,
                      _ body: @escaping @Sendable (ConsoleSession, ConsoleForm, ConsoleScope) async throws -> Response) {
        for prefix in ["/console", "/console/t/{tenant}"] {
            router.post(RouterPath(prefix + path)) { request, context in
                try await action(request) { session, form in
                    let target: ConsoleScope
                    do {
                        target = try await consoleScope(context)
                    } catch let refusal as ScopeRefusal {
                        return await errorPage(refusal.error, session: session, status: refusal.status, title: refusal.title)
                    }
                    return try await body(session, form, target)
                }
            }
        }
    }

    /// Why a tenant address shows no page: the refusal, its status and title.
    struct ScopeRefusal: Error {
        let error: HearthAPIError
        let status: HTTPResponse.Status
        let title: String
    }

    /// The scope of a request's address: the project without `{tenant}`, else the stored tenant (resolved as every
    /// entry resolves it, ``AdminService/scope(tenantId:in:)``).
    func consoleScope(_ context: HearthRequestContext) async throws -> ConsoleScope {
        guard let id = context.parameters.get("tenant") else { return ConsoleScope(scope: projectScope, base: "/console") }
        do {
            let scope = try await service.scope(tenantId: id, in: "the console's address")
            return ConsoleScope(scope: scope, base: ConsoleScope.base(tenantId: id))
        } catch let error as HearthAPIError where error.code == .tenantNotFound {
            throw ScopeRefusal(error: Self.noSuchTenant(id, projectId: projectScope.projectId), status: .notFound, title: "No such tenant")
        } catch let error as HearthAPIError where error.code == .operationNotAllowed {
            throw ScopeRefusal(error: HearthAPIError(.operationNotAllowed, "tenant \(id) is turned off (disableAuth): nobody signs in to it and its users and providers cannot be managed. To manage them, open Tenants, choose the tenant and uncheck Turn the tenant off."),
                               status: .forbidden, title: "Tenant turned off")
        }
    }

    /// `TENANT_NOT_FOUND` in the console's words (the id shown shortened, without control characters).
    static func noSuchTenant(_ id: String, projectId: String) -> HearthAPIError {
        let shown = id.withoutControlCharacters
        return HearthAPIError(.tenantNotFound, "project \(projectId) has no tenant \"\(shown.count > 40 ? String(shown.prefix(40)) + "…" : shown)\": pick one with the Scope picker above, or open Tenants to see them all")
    }

    /// The picker under the navigation: the project and the first ``pickerLimit`` tenants (the page's own tenant
    /// always among them), and a sentence saying which scope the page shows. `target` is nil on the project's pages.
    func scopeBar(_ target: ConsoleScope?, current: String?) async -> ConsoleScopeBar {
        let tenant = target?.tenant
        let listed = (try? await projectScope.store.tenants(after: nil, limit: Self.pickerLimit + 1)) ?? []
        var tenants = Array(listed.prefix(Self.pickerLimit))
        if let tenant, !tenants.contains(where: { $0.id == tenant.id }) { tenants.append(tenant) }
        let choices = [ConsoleScopeBar.Choice(id: "", label: "Project \(projectScope.projectId)", selected: tenant == nil)]
            + tenants.map { record in
                ConsoleScopeBar.Choice(id: record.id, label: "\(record.displayName) (\(record.id))" + (record.settings.disableAuth ? ", turned off" : ""),
                                       selected: record.id == tenant?.id)
            }
        let note = if current == "/console/blocking-functions" {
            tenant.map { "Blocking functions are the project's: tenant \($0.displayName)'s users go through the project's functions." }
                ?? "The project's blocking functions: its own users and every tenant's go through them."
        } else if let tenant {
            "Users and sign-in methods of tenant \(tenant.displayName) only. Settings, templates, apps and keys are the project's, shared by every tenant."
        } else if target != nil {
            "The project's own users and sign-in methods (outside every tenant)."
        } else {
            "This page is the project's, shared by every tenant; Users and Sign-in method follow the scope."
        }
        return ConsoleScopeBar(base: target?.base ?? "/console", choices: choices, section: Self.pickerSection(current),
                               note: note, tenantLabel: tenant.map { "\($0.displayName) · \($0.id)" }, more: listed.count > Self.pickerLimit)
    }

    /// The scoped section the picker goes to from the page at `current` (Users unless Sign-in method or Blocking functions).
    static func pickerSection(_ current: String?) -> String {
        switch current {
        case "/console/providers": "providers"
        case "/console/blocking-functions": "blocking-functions"
        default: "users"
        }
    }

    // MARK: Tenants

    func registerTenants(on router: Router<HearthRequestContext>) {
        // The picker: a GET form (no change is made), to the chosen scope's Users or Sign-in method.
        router.get("/console/switch") { request, _ in
            guard let session = try await access.session(request) else { return toLogin(request) }
            let query = FormQuery(request.uri.query)
            let section = Self.pickerSection("/console/" + (query.get("to") ?? ""))
            let id = query.get("tenant") ?? ""
            if id.isEmpty { return redirect("/console/\(section)") }
            guard TenantRecord.isValidId(id) else {
                return await errorPage(Self.noSuchTenant(id, projectId: projectScope.projectId), session: session, status: .notFound, title: "No such tenant")
            }
            return redirect(ConsoleScope.base(tenantId: id) + "/" + section)
        }
        page(router, "/console/tenants", title: "Tenants") { request, _ in
            try await tenantsPage(after: FormQuery(request.uri.query).get("after"))
        }
        router.post("/console/tenants") { request, _ in
            try await action(request) { session, form in
                let typed = Self.tenantForm(form)
                do {
                    let created = try await service.createTenant(Self.tenantBody(typed), by: principal(session))
                    let id = created.name?.split(separator: "/").last.map(String.init) ?? ""
                    return redirect(Self.tenantHref(id) + "&ok=tenant-created")
                } catch let error as HearthAPIError where error.httpStatus < 500 {
                    var page = try await tenantsPage(after: nil)
                    page.form = Self.refused(typed, error)
                    return html(await render(page, title: "Tenants", current: "/console/tenants", session: session), status: .badRequest)
                }
            }
        }
        page(router, "/console/tenant", title: "Tenant", nav: "/console/tenants") { request, _ in
            try await tenantPage(service.storedTenant(FormQuery(request.uri.query).get("id") ?? ""))
        }
        router.post("/console/tenant") { request, _ in
            try await action(request) { session, form in
                let stored = try await service.storedTenant(form["id"] ?? "")
                let typed = Self.tenantForm(form)
                let paths = Self.changedPaths(stored, typed)
                do {
                    if !paths.isEmpty { _ = try await service.updateTenant(stored.id, Self.tenantBody(typed), paths: paths, by: principal(session)) }
                } catch let error as HearthAPIError where error.httpStatus < 500 {
                    var page = tenantPage(stored)
                    page.form = Self.refused(typed, error)
                    return html(await render(page, title: "Tenant", current: "/console/tenants", session: session), status: .badRequest)
                }
                return redirect(Self.tenantHref(stored.id) + "&ok=tenant-saved")
            }
        }
        page(router, "/console/tenant/delete", title: "Delete tenant", nav: "/console/tenants") { request, _ in
            let tenant = try await service.storedTenant(FormQuery(request.uri.query).get("id") ?? "")
            let count = try await projectScope.store.bound(toTenant: tenant.id).userCount()
            return ConfirmDeleteTenantPage(id: tenant.id, displayName: tenant.displayName,
                                           users: count == 0 ? "Its users (it has none now)" : count == 1 ? "Its 1 user" : "Its \(count) users",
                                           backHref: Self.tenantHref(tenant.id))
        }
        router.post("/console/tenant/delete") { request, _ in
            try await action(request) { session, form in
                _ = try await service.deleteTenant(form["id"] ?? "", by: principal(session))
                return redirect("/console/tenants?ok=tenant-deleted")
            }
        }
    }

    static func tenantHref(_ id: String) -> String { "/console/tenant?id=" + id }

    /// The Tenants page: tenants by id, ``tenantsPageSize`` a page (`after`: the last id of the page before).
    func tenantsPage(after: String?) async throws -> TenantsPage {
        let after = after.flatMap { TenantRecord.isValidId($0) ? $0 : nil }
        let tenants = try await projectScope.store.tenants(after: after, limit: Self.tenantsPageSize + 1)
        let page = Array(tenants.prefix(Self.tenantsPageSize))
        return TenantsPage(
            caption: page.isEmpty ? (after == nil ? "No tenants yet: every user is the project's." : "No more tenants.")
                : "\(page.count) tenant\(page.count == 1 ? "" : "s")" + (after == nil ? "" : " after \(after ?? "")") + ", by ID",
            tenants: page.enumerated().map { index, tenant in
                let settings = tenant.settings
                let signIn = [(settings.allowPasswordSignup, "Email/password"), (settings.enableEmailLinkSignin, "Email link"),
                              (settings.enableAnonymousUser, "Anonymous")].filter(\.0).map(\.1)
                let base = ConsoleScope.base(tenantId: tenant.id)
                return TenantsPage.Row(index: index, id: tenant.id, displayName: tenant.displayName, href: Self.tenantHref(tenant.id),
                                       usersHref: base + "/users", providersHref: base + "/providers", signIn: signIn,
                                       authDisabled: settings.disableAuth, created: Self.display(tenant.createdAt))
            },
            next: tenants.count > Self.tenantsPageSize ? page.last.map { "/console/tenants?after=\($0.id)" } : nil,
            form: TenantForm())
    }

    func tenantPage(_ tenant: TenantRecord) -> TenantPage {
        let settings = tenant.settings
        let base = ConsoleScope.base(tenantId: tenant.id)
        return TenantPage(
            pageTitle: "Tenant \(tenant.displayName)", id: tenant.id, created: Self.display(tenant.createdAt),
            usersHref: base + "/users", providersHref: base + "/providers", deleteHref: "/console/tenant/delete?id=\(tenant.id)",
            form: TenantForm(displayName: tenant.displayName, allowPasswordSignup: settings.allowPasswordSignup,
                             enableEmailLinkSignin: settings.enableEmailLinkSignin, enableAnonymousUser: settings.enableAnonymousUser,
                             disableAuth: settings.disableAuth))
    }

    /// The create or edit form as sent.
    static func tenantForm(_ form: ConsoleForm) -> TenantForm {
        TenantForm(displayName: form["displayName"] ?? "", allowPasswordSignup: form.flag("allowPasswordSignup"),
                   enableEmailLinkSignin: form.flag("enableEmailLinkSignin"), enableAnonymousUser: form.flag("enableAnonymousUser"),
                   disableAuth: form.flag("disableAuth"))
    }

    /// The tenant resource's body of a form (the admin service checks it as it checks the API's).
    static func tenantBody(_ form: TenantForm) -> Tenant {
        let name = form.displayName.trimmingCharacters(in: .whitespacesAndNewlines)
        return Tenant(displayName: name.isEmpty ? nil : name, allowPasswordSignup: form.allowPasswordSignup,
                      enableEmailLinkSignin: form.enableEmailLinkSignin, enableAnonymousUser: form.enableAnonymousUser,
                      disableAuth: form.disableAuth)
    }

    /// The fields the edit form changes (the update's `updateMask`, and the audit entry's detail).
    static func changedPaths(_ stored: TenantRecord, _ form: TenantForm) -> [String] {
        let settings = stored.settings
        return [
            ("displayName", form.displayName.trimmingCharacters(in: .whitespacesAndNewlines) != stored.displayName),
            ("allowPasswordSignup", form.allowPasswordSignup != settings.allowPasswordSignup),
            ("enableEmailLinkSignin", form.enableEmailLinkSignin != settings.enableEmailLinkSignin),
            ("enableAnonymousUser", form.enableAnonymousUser != settings.enableAnonymousUser),
            ("disableAuth", form.disableAuth != settings.disableAuth),
        ].filter(\.1).map(\.0)
    }

    /// The form as typed with the admin service's refusal beside its field (the display name's), else above it.
    static func refused(_ typed: TenantForm, _ error: HearthAPIError) -> TenantForm {
        var form = typed
        // People read the sentence in the form's words, not the wire's field name.
        let detail = (error.detail ?? error.description).replacingOccurrences(of: "a tenant's displayName", with: "a display name")
            .replacingOccurrences(of: "displayName", with: "display name")
        let message = detail.prefix(1).uppercased() + detail.dropFirst()
        let field: WritableKeyPath<TenantForm, String?>? = error.code == .invalidDisplayName ? \.displayNameError : nil
        showRefusal(message, at: field, formError: \.formError, on: &form)
        return form
    }
}
