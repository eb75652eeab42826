import Foundation
import HearthCore
import HearthPages
import HearthStore
import HearthWire
import Hummingbird

/// The console's pages: each returns its view model (``ConsolePageModels.swift``).
extension ConsoleController {
    // MARK: Overview

    func overview(_ request: Request, _ session: ConsoleSession) async throws -> OverviewPage {
        let now = configuration.clock.now()
        let since = now.addingTimeInterval(-29 * 86_400)
        let days = (0..<30).map { AdminService.day(since.addingTimeInterval(Double($0) * 86_400)) }
        let counts = try await store.dailyCounts(sinceDay: days[0])
        // The 500 newest users (one range of `users_created_at`, nothing counted) and the cached total (issue 41).
        let recent = try await projectScope.store.queryUsers(UserQuery(sortBy: .createdAt, ascending: false, limit: 500, countsTotal: false)).users
        let cutoff = now.addingTimeInterval(-30 * 86_400)
        let newUsers = recent.filter { $0.createdAt >= cutoff }.count
        let total = try await userCounts.users(of: projectScope.store, now: now)
        let signIns = counts.filter { $0.kind == "signIn" }
        let refusals = counts.filter { $0.kind == "refused" }
        let providers = Array(Set(signIns.map(\.key))).sorted()
        let palette = ["#c2410c", "#1d4ed8", "#15803d", "#7c3aed", "#a16207", "#0e7490", "#be185d", "#4b5563"]
        let colors = Dictionary(uniqueKeysWithValues: providers.enumerated().map { ($1, palette[$0 % palette.count]) })
        var refusalTotals: [String: Int] = [:]
        for count in refusals { refusalTotals[count.key, default: 0] += count.count }
        return OverviewPage(
            usersTotal: String(total.users),
            usersNew: newUsers >= 500 ? "500+" : String(newUsers),
            signInsTotal: String(signIns.reduce(0) { $0 + $1.count }),
            refusedTotal: String(refusals.reduce(0) { $0 + $1.count }),
            chart: Self.chart(days: days, counts: signIns, providers: providers, colors: colors),
            legend: providers.map { provider in
                OverviewPage.LegendEntry(provider: provider, color: colors[provider] ?? "#888",
                                         count: String(signIns.filter { $0.key == provider }.reduce(0) { $0 + $1.count }))
            },
            refusals: refusalTotals.sorted { $0.value > $1.value }.map { OverviewPage.Refusal(reason: $0.key, count: String($0.value)) },
            mail: mailStatus, blockingOutage: try await blockingOutage(), smsAlerts: await smsAlerts(),
            usersCounted: total.fresh ? nil : "counted \(total.age(at: now)) s ago")
    }

    /// Stacked bars, one per day, one colour per provider, and every seventh day's date counted back from today
    /// (the template, `console-chart.mustache`, escapes the texts).
    static func chart(days: [String], counts: [DailyCount], providers: [String], colors: [String: String]) -> OverviewPage.Chart {
        let width = 640.0, height = 200.0, left = 32.0, bottom = 22.0
        var byDay: [String: [String: Int]] = [:]
        for count in counts { byDay[count.day, default: [:]][count.key, default: 0] += count.count }
        let maximum = max(1, byDay.values.map { $0.values.reduce(0, +) }.max() ?? 1)
        let barWidth = (width - left) / Double(days.count)
        let scale = (height - bottom - 8) / Double(maximum)
        func number(_ value: Double) -> String { String(format: "%.1f", value) }
        let chartDays = days.enumerated().map { index, day -> OverviewPage.Chart.Day in
            let x = left + Double(index) * barWidth
            var y = height - bottom
            var bars: [OverviewPage.Chart.Bar] = []
            for provider in providers {
                guard let value = byDay[day]?[provider], value > 0 else { continue }
                let barHeight = Double(value) * scale
                y -= barHeight
                bars.append(.init(x: number(x + 1), y: number(y), width: number(barWidth - 2), height: number(barHeight),
                                  fill: colors[provider] ?? "#888", day: day, provider: provider, value: value))
            }
            // Each label ends at its day's bar, so the last one (today) stays inside the chart.
            let label = (days.count - 1 - index) % 7 == 0
                ? OverviewPage.Chart.Label(x: number(x + barWidth), y: Int(height - 6), text: String(day.suffix(5))) : nil
            return OverviewPage.Chart.Day(bars: bars, label: label)
        }
        return OverviewPage.Chart(width: Int(width), height: Int(height), left: left, right: width, baseline: height - bottom,
                                  baselineLabel: Int(height - bottom), maximum: maximum, days: chartDays)
    }

    // MARK: Users

    func users(_ request: Request, _ session: ConsoleSession, in target: ConsoleScope) async throws -> UsersPage {
        let parameters = FormQuery(request.uri.query)
        let search = (parameters.get("q") ?? "").trimmingCharacters(in: .whitespaces)
        let pageIndex = max(0, Int(parameters.get("page") ?? "0") ?? 0)
        let users: [UserInfo]
        let total: Int
        var counted = ""
        var hasNext: Bool
        var previousHref: String?, nextHref: String?
        let encodedSearch = search.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        func pageHref(_ index: Int) -> String { target.base + "/users?page=\(index)" + (search.isEmpty ? "" : "&q=\(encodedSearch)") }
        if search.isEmpty {
            // Newest first, paged by key (issue 41): a page deep in a million users reads one index range, not every user
            // before it. A bare `page=N` (a link typed by hand) still skips by offset; the links carry the key.
            let after = parameters.get("after").flatMap(Self.cursor)
            let before = parameters.get("before").flatMap(Self.cursor)
            let store = target.scope.store
            var query = UserQuery(sortBy: .createdAt, ascending: before != nil, offset: after == nil && before == nil ? pageIndex * Self.pageSize : 0,
                                  limit: Self.pageSize + 1, after: before ?? after, countsTotal: false)
            if before != nil {
                // The page before: the next `pageSize` users the other way, shown newest first.
                query.limit = Self.pageSize
                let records = try await store.queryUsers(query).users
                users = records.reversed().map(\.userInfo)
                hasNext = true
                if let first = records.last, pageIndex > 0 {
                    previousHref = pageIndex > 1 ? pageHref(pageIndex - 1) + "&before=" + Self.cursor(first) : pageHref(0)
                }
                if let last = records.first { nextHref = pageHref(pageIndex + 1) + "&after=" + Self.cursor(last) }
            } else {
                let records = try await store.queryUsers(query).users
                let page = records.prefix(Self.pageSize)
                users = page.map(\.userInfo)
                hasNext = records.count > Self.pageSize
                if let last = page.last, hasNext { nextHref = pageHref(pageIndex + 1) + "&after=" + Self.cursor(last) }
                if pageIndex > 0 {
                    previousHref = pageIndex > 1 ? page.first.map { pageHref(pageIndex - 1) + "&before=" + Self.cursor($0) } ?? pageHref(0) : pageHref(0)
                }
            }
            let count = try await userCounts.users(of: store, now: configuration.clock.now(), atLeast: pageIndex * Self.pageSize + users.count)
            total = count.users
            counted = count.ageNote(at: configuration.clock.now())
            if users.isEmpty { hasNext = false }
        } else {
            var query = QueryUsersRequest()
            query.limit = FlexibleInt(Int64(Self.pageSize))
            query.offset = FlexibleInt(Int64(pageIndex * Self.pageSize))
            query.sortBy = "CREATED_AT"
            query.order = "DESC"
            var expressions = [QueryExpression(userId: search)]
            if search.contains("@") { expressions.append(QueryExpression(email: search)) }
            if search.hasPrefix("+") { expressions.append(QueryExpression(phoneNumber: search)) }
            query.expression = expressions
            let result = try await service.query(query, in: target.scope)
            total = Int(result.recordsCount) ?? 0
            users = result.userInfo ?? []
            hasNext = (pageIndex + 1) * Self.pageSize < total
            if hasNext { nextHref = pageHref(pageIndex + 1) }
            if pageIndex > 0 { previousHref = pageHref(pageIndex - 1) }
        }
        return UsersPage(
            caption: total == 0 && users.isEmpty ? (search.isEmpty ? (target.tenant == nil ? "No users yet." : "No users in this tenant yet.") : "No user matches “\(search)”.")
                : users.isEmpty ? "No more users (\(total) in all\(counted))."
                : "Users \(pageIndex * Self.pageSize + 1)–\(pageIndex * Self.pageSize + users.count) of \(total)\(counted)",
            users: users.enumerated().map { index, user in
                var providers = user.providerUserInfo.map(\.providerId)
                if providers.isEmpty { providers = [user.email != nil ? "email (no password)" : "anonymous"] }
                return UsersPage.Row(index: index, uid: user.localId, href: userHref(user.localId, in: target), identifier: identifier(user),
                                     disabled: user.disabled, providers: providers, created: Self.display(milliseconds: user.createdAt),
                                     lastSignIn: Self.display(milliseconds: user.lastLoginAt), secondFactor: !(user.mfaInfo ?? []).isEmpty,
                                     phone: user.phoneNumber)
            },
            query: search.isEmpty ? nil : search,
            previous: previousHref,
            next: hasNext ? nextHref : nil)
    }

    /// A user's place in the newest-first list, for a page link: its exact creation time (seconds, every digit) and uid.
    static func cursor(_ user: UserRecord) -> String {
        ("\(user.createdAt.timeIntervalSince1970)~" + user.localId).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    /// The place a link carries (``cursor(_:)``, already percent-decoded); nil when it is not one.
    static func cursor(_ text: String) -> UserQuery.Cursor? {
        guard let separator = text.firstIndex(of: "~"), let seconds = Double(text[..<separator]), seconds.isFinite else { return nil }
        let localId = String(text[text.index(after: separator)...])
        guard !localId.isEmpty else { return nil }
        return UserQuery.Cursor(createdAt: Date(timeIntervalSince1970: seconds), localId: localId)
    }

    func user(_ request: Request, _ session: ConsoleSession, in target: ConsoleScope) async throws -> UserPage {
        let user = try await lookup(FormQuery(request.uri.query).get("uid"), in: target)
        var facts: [(String, String)] = [("UID", user.localId)]
        if let tenant = target.tenant { facts.append(("Tenant", "\(tenant.displayName) (\(tenant.id))")) }
        facts.append(("Email", user.email ?? "—"))
        facts.append(("Email verified", user.emailVerified ? "yes" : "no"))
        if let name = user.displayName { facts.append(("Display name", name)) }
        if let phone = user.phoneNumber { facts.append(("Phone number", phone)) }
        facts.append(("Status", user.disabled ? "disabled" : "enabled"))
        facts.append(("Created", Self.display(milliseconds: user.createdAt)))
        facts.append(("Last sign-in", Self.display(milliseconds: user.lastLoginAt)))
        facts.append(("Password", user.passwordUpdatedAt != nil ? "set" : "none"))
        let (secondFactors, recoveryCodes) = try await secondFactors(of: user.localId, in: target)
        return UserPage(
            pageTitle: identifier(user),
            uid: user.localId, disabled: user.disabled,
            deleteHref: target.base + "/user/delete?uid=" + (user.localId.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""),
            facts: facts.map { UserPage.Fact(label: $0.0, value: $0.1) },
            providers: user.providerUserInfo.map { info in
                // Everything that identifies the link, the provider's own uid included (what support asks for).
                UserPage.LinkedProvider(
                    providerId: info.providerId,
                    detail: ([info.email, info.displayName].compactMap { $0 } + (info.rawId == info.email ? [] : ["uid \(info.rawId)"])).joined(separator: " · "))
            },
            claims: Self.prettyClaims(user.customAttributes), secondFactors: secondFactors, recoveryCodes: recoveryCodes,
            passkeys: try await passkeys(of: user.localId, in: target))
    }

    static func prettyClaims(_ text: String?) -> String {
        guard let text, !text.isEmpty, let data = text.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data),
              let pretty = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]) else {
            return text ?? ""
        }
        return String(decoding: pretty, as: UTF8.self)
    }

    // MARK: Sign-in method

    func providers(in target: ConsoleScope) async throws -> ProvidersPage {
        let scope = target.scope
        let project = try await service.projectConfigResource(in: scope)
        let configs = try await scope.store.idpConfigs()
        func row(_ name: String, _ id: String, enabled: Bool, configured: Bool, toggle: Bool, edit: Bool) -> ProvidersPage.Row {
            ProvidersPage.Row(name: name, providerId: id, enabled: enabled, toggle: toggle,
                              status: configured ? (enabled ? "Enabled" : "Disabled") : "Not configured",
                              editHref: edit ? target.base + "/provider?id=\(id)" : nil)
        }
        var rows = [
            row("Email/Password", "password", enabled: project.signIn?.email?.enabled ?? false, configured: true, toggle: true, edit: false),
            row("Anonymous", "anonymous", enabled: project.signIn?.anonymous?.enabled ?? false, configured: true, toggle: true, edit: false),
        ]
        let devProviders = Set(try await federation.providerSources(in: scope).filter { $0.kind == .devIdP }.map(\.providerId))
        for (id, name) in [("apple.com", "Apple"), ("google.com", "Google"), ("microsoft.com", "Microsoft"), ("yahoo.com", "Yahoo")] {
            let config = configs.first { $0.providerId == id && !$0.isDevLeftover }
            var entry = row(name, id, enabled: config?.enabled ?? false, configured: config != nil, toggle: config != nil, edit: true)
            entry.detail = config.flatMap(Self.providerDetail)
            if config == nil, devProviders.contains(id) {
                entry.enabled = true
                entry.status = "Dev IdP (this process only; configure to use the real \(name))"
            }
            rows.append(entry)
        }
        for config in configs.filter({ $0.kind == .oidc }).sorted(by: { $0.providerId < $1.providerId }) {
            rows.append(row(config.displayName ?? config.providerId, config.providerId, enabled: config.enabled, configured: true, toggle: true, edit: true))
        }
        return ProvidersPage(providers: rows)
    }

    /// What the providers list says after Enabled/Disabled: Apple's web and native parts, Google's hosted domains.
    static func providerDetail(_ config: IdPConfig) -> String? {
        switch config.kind {
        case .apple:
            let bundles = config.appleBundleIds?.count ?? 0
            let apps = bundles == 1 ? "1 bundle ID" : "\(bundles) bundle IDs"
            guard appleKeyOnFile(config) else { return "native only (\(apps), no web key)" }
            return bundles == 0 ? "web only (key \(config.appleKeyId ?? ""))" : "web and native (key \(config.appleKeyId ?? ""), \(apps))"
        case .google:
            let domains = config.allowedHostedDomains ?? []
            return domains.isEmpty ? nil : "hosted domains: " + domains.joined(separator: ", ")
        case .microsoft, .yahoo, .oidc:
            return nil
        }
    }

    /// The provider form again after a refused save: the values as typed (never the secret) and the error beside the
    /// field it concerns, instead of a separate error page.
    func providerFormAgain(_ form: ConsoleForm, error: HearthAPIError, in target: ConsoleScope) async throws -> ProviderPage {
        let id = form.text("provider") ?? "oidc.new"
        let known = id.hasPrefix("oidc.") ? (try? AdminService.checkOIDCId(id)) != nil : (try? AdminService.checkDefaultIdpId(id)) != nil
        var page = try await provider(known ? id : "oidc.new", in: target)
        if !known { page.providerId = id }
        page.clientId = form["clientId"] ?? ""
        page.issuer = form["issuer"] ?? ""
        page.displayName = form["displayName"] ?? ""
        page.allowedEntraTenants = form["allowedTenants"] ?? ""
        page.nativeClientIds = form["nativeClientIds"] ?? ""
        page.allowedHostedDomains = form["allowedHostedDomains"] ?? ""
        page.enabled = form.flag("enabled")
        page.tokenVault = form.flag("tokenVault")
        // People read the sentence, not the wire code in front of it.
        let message = error.detail.map { detail in
            let named = detail.replacingOccurrences(of: "allowedHostedDomains", with: "allowed hosted domains")
            return named.prefix(1).uppercased() + named.dropFirst()
        } ?? error.description
        let lower = message.lowercased()
        let field: WritableKeyPath<ProviderPage, String?>? = lower.contains("hosted") ? \.allowedHostedDomainsError
            : lower.contains("tenant") ? \.allowedEntraTenantsError
            : lower.contains("client id") || lower.contains("client_id") || error.code == .missingOAuthClientId ? \.clientIdError
            : lower.contains("issuer") ? \.issuerError : lower.contains("native") ? \.nativeClientIdsError : lower.contains("secret") ? \.clientSecretError
            : !known ? \.providerIdError : nil
        Self.showRefusal(message, at: field, formError: \.formError, on: &page)
        return page
    }

    /// A refused save's message beside the field it names (with a line above the form pointing at it), else above the form.
    static func showRefusal<Page>(_ message: String, at field: WritableKeyPath<Page, String?>?, formError: WritableKeyPath<Page, String?>,
                                  on page: inout Page) {
        if let field {
            page[keyPath: field] = message
            page[keyPath: formError] = "Nothing was saved: correct the field marked below."
        } else {
            page[keyPath: formError] = "Nothing was saved: " + message
        }
    }

    func provider(_ id: String, in target: ConsoleScope) async throws -> ProviderPage {
        let isNew = id == "oidc.new"
        let isOIDC = id.hasPrefix("oidc.")
        if !isNew {
            if isOIDC { _ = try AdminService.checkOIDCId(id) } else { _ = try AdminService.checkDefaultIdpId(id) }
        }
        let config = isNew ? nil : try await target.scope.store.idpConfig(providerId: id)
        let name = isNew ? "a new OpenID Connect provider" : config?.displayName ?? AdminService.defaultSupportedIdps[id]?.description ?? id
        let hint = switch id {
        case "microsoft.com": "In the Azure portal (App registrations → your app → Authentication), add a Web platform redirect URI with this value; the client ID is the Application (client) ID and the secret a client secret's Value."
        case "yahoo.com": "In the Yahoo developer console, set this as the app's Redirect URI; copy its Client ID and Client Secret here."
        case "google.com": "In the Google Cloud console (APIs & Services → Credentials → Create credentials → OAuth client ID, type Web application), add this under Authorized redirect URIs; copy the client ID and client secret here. The iOS and Android OAuth clients' IDs go under native client IDs."
        default: "Register this redirect URI with the provider's OAuth client (authorization code flow); the issuer's /.well-known/openid-configuration must be reachable from this server."
        }
        return ProviderPage(
            pageTitle: "Configure \(name)", providerId: isNew ? "oidc." : id, isNew: isNew, isOIDC: isOIDC, isMicrosoft: id == "microsoft.com",
            redirectURI: configuration.publicURL.authHandlerURL, hint: hint,
            clientId: config?.clientId ?? "", issuer: config?.issuer ?? "", displayName: config?.displayName ?? "",
            secretSet: config != nil, secretState: config != nil ? "set; never shown" : "not set",
            enabled: config?.enabled ?? true, tokenVault: config?.keepsProviderTokens ?? true,
            vaultKeys: configuration.providerTokenKeys != nil, nativeClientIds: (config?.nativeClientIds ?? []).joined(separator: ", "),
            allowedEntraTenants: (config?.allowedEntraTenants ?? []).joined(separator: ", "), canTest: config != nil, isGoogle: id == "google.com",
            allowedHostedDomains: (config?.allowedHostedDomains ?? []).joined(separator: ", "),
            nativeClientIdsLabel: id == "google.com"
                ? "Native client IDs whose ID tokens are accepted (comma-separated: the iOS and Android OAuth client IDs)"
                : "Native client IDs whose ID tokens are accepted (comma-separated, e.g. an MSAL app's ID)")
    }

    /// The configuration check of a provider (the "Test configuration" button).
    func providerTest(_ id: String, in target: ConsoleScope) async throws -> ProviderTestPage {
        if id.hasPrefix("oidc.") { _ = try AdminService.checkOIDCId(id) } else { _ = try AdminService.checkDefaultIdpId(id) }
        let report = try await federation.checkProvider(id, in: target.scope)
        return ProviderTestPage(
            pageTitle: "Test \(id)", providerId: id, ok: report.ok, backHref: target.base + "/provider?id=\(id)",
            summary: report.ok ? "the configuration looks right." : "the configuration has problems; each failed check says what to fix.",
            checks: report.checks.map { check in
                ProviderTestPage.Check(name: check.name, status: check.status.rawValue, detail: check.detail,
                                       passed: check.status == .ok, failed: check.status == .failed, fix: check.fix)
            })
    }

    /// Enables or disables a provider of the page's scope. In a tenant, Email/Password and Anonymous are the
    /// tenant's own flags (`allowPasswordSignup`, `enableAnonymousUser`), changed as the tenant resource's PATCH
    /// does (audited as `tenants.update`); the project's settings are the project's.
    func toggle(_ providerId: String, enabled: Bool, by principal: AdminPrincipal, in target: ConsoleScope) async throws {
        let scope = target.scope
        if let tenant = target.tenant, providerId == "password" || providerId == "anonymous" {
            let body = providerId == "password" ? Tenant(allowPasswordSignup: enabled) : Tenant(enableAnonymousUser: enabled)
            _ = try await service.updateTenant(tenant.id, body, paths: [providerId == "password" ? "allowPasswordSignup" : "enableAnonymousUser"],
                                               by: principal)
            return
        }
        switch providerId {
        case "password":
            try await service.updateProjectSettings([.passwordSignIn(enabled)], by: principal, in: scope)
        case "anonymous":
            try await service.updateProjectSettings([.anonymousSignIn(enabled)], by: principal, in: scope)
        case let id where id.hasPrefix("oidc."):
            try await service.updateOAuthIdpConfig(id, [.enabled(enabled)], by: principal, in: scope)
        default:
            try await service.updateDefaultIdpConfig(providerId, [.enabled(enabled)], by: principal, in: scope)
        }
    }

    /// Creates or updates a provider from the configure form. An empty secret keeps the stored one.
    func saveProvider(_ form: ConsoleForm, by principal: AdminPrincipal, in target: ConsoleScope) async throws {
        let scope = target.scope
        let id = form.text("provider") ?? ""
        if id == "apple.com" { return try await saveApple(form, by: principal, in: target) }
        let secret = form["clientSecret"].flatMap { $0.isEmpty ? nil : $0 }
        let enabled = form.flag("enabled")
        let exists = try await scope.store.idpConfig(providerId: id) != nil
        var changes: [ProviderSettingChange] = [.enabled(enabled), .clientId(form.text("clientId"))]
        if let secret { changes.append(.clientSecret(secret)) }
        // The vault fields only when the form had them (a form without them changes neither).
        let vaultFields = form["vaultFields"] == "1"
        let tokenVault = vaultFields ? form.flag("tokenVault") : nil
        let nativeClientIds = vaultFields
            ? IdPConfig.listEntries(form["nativeClientIds"] ?? "") : nil
        if let tokenVault, let nativeClientIds { changes += [.tokenVault(tokenVault), .nativeClientIds(nativeClientIds)] }
        if id.hasPrefix("oidc.") {
            if exists {
                try await service.updateOAuthIdpConfig(id, changes + [.issuer(form.text("issuer")), .displayName(form.text("displayName"))],
                                                       by: principal, in: scope)
            } else {
                let body = OAuthIdpConfig(clientId: form.text("clientId"), clientSecret: secret, issuer: form.text("issuer"),
                                          displayName: form.text("displayName"), enabled: enabled, tokenVault: tokenVault,
                                          nativeClientIds: nativeClientIds)
                _ = try await service.createOAuthIdpConfig(id: id, body, by: principal, in: scope)
            }
        } else {
            let allowedTenants = id == "microsoft.com" ? IdPConfig.listEntries(form["allowedTenants"] ?? "") : nil
            let allowedHostedDomains = id == "google.com" ? IdPConfig.listEntries(form["allowedHostedDomains"] ?? "") : nil
            if let allowedTenants { changes.append(.allowedEntraTenants(allowedTenants)) }
            if let allowedHostedDomains { changes.append(.allowedHostedDomains(allowedHostedDomains)) }
            if exists {
                try await service.updateDefaultIdpConfig(id, changes, by: principal, in: scope)
            } else {
                let body = DefaultSupportedIdpConfig(enabled: enabled, clientId: form.text("clientId"), clientSecret: secret,
                                                     allowedTenants: allowedTenants, tokenVault: tokenVault, nativeClientIds: nativeClientIds,
                                                     allowedHostedDomains: allowedHostedDomains)
                _ = try await service.createDefaultIdpConfig(idpId: id, body, by: principal, in: scope)
            }
        }
    }

    // MARK: Settings, apps, service accounts, keys

    /// The Settings page; after a clock check, with the key that was checked (`clockNonce`) and the answer.
    func settings(_ session: ConsoleSession, clockNonce: String? = nil, clockResult: SettingsPage.ClockCheck.Result? = nil) async throws -> SettingsPage {
        let scope = projectScope
        let project = try await service.projectConfigResource(in: scope)
        let card = try secondFactorsCard(try await scope.config(), session: session, nonce: clockNonce, result: clockResult)
        return SettingsPage(
            onePerEmail: !(project.signIn?.allowDuplicateEmails ?? false),
            enumeration: project.emailPrivacyConfig?.enableImprovedEmailPrivacy ?? false,
            signupAllowed: !(project.client?.permissions?.disabledUserSignup ?? false),
            deletionAllowed: !(project.client?.permissions?.disabledUserDeletion ?? false),
            domains: (project.authorizedDomains ?? []).map { SettingsPage.Domain(domain: $0) }, secondFactors: card,
            passkeys: try await passkeysCard())
    }

    func apps() async throws -> AppsPage {
        let apps = try await store.apps()
        return AppsPage(
            caption: apps.isEmpty ? "No apps registered." : "\(apps.count) app(s)",
            apps: apps.map { app in
                let redirect = switch app.kind {
                case .apple: AuthHandlerProtocol.callbackScheme(appId: app.appId, clientId: app.clientId).map { "\($0)://" } ?? "—"
                case .desktop: "http://127.0.0.1:<port>/… (loopback, RFC 8252)"
                }
                return AppsPage.App(id: app.id, name: app.name ?? app.bundleId ?? app.id, kind: app.kind == .apple ? "Apple app" : "Desktop / CLI",
                                    redirect: redirect, webCredentials: app.appleAppIdentifier ?? "—")
            })
    }

    func serviceAccounts() async throws -> ServiceAccountsPage {
        let keys = try await service.serviceAccountKeys()
        return ServiceAccountsPage(
            caption: keys.isEmpty ? "No service-account keys." : "\(keys.count) key(s)",
            keys: keys.map { ServiceAccountsPage.Key(email: $0.clientEmail, keyId: $0.keyId, created: Self.display($0.createdAt)) })
    }

    func signingKeys() async throws -> SigningKeysPage {
        let keys = try await store.signingKeys().sorted { $0.generation > $1.generation }
        let now = configuration.clock.now()
        let active = configuration.keyRotation.plan(keys: keys, now: now).active
        return SigningKeysPage(
            rotationHours: String(Int(configuration.keyRotation.rotationInterval / 3600)),
            prepublishMinutes: String(Int(configuration.keyRotation.prepublish / 60)),
            keys: keys.map { key in
                let state = key.kid == active?.kid ? "active" : key.activatesAt > now ? "next" : "retired"
                return SigningKeysPage.Key(kid: key.kid, state: state, created: Self.display(key.createdAt), activates: Self.display(key.activatesAt))
            })
    }
}
