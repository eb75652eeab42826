import Foundation

/// The web console's pages (`/console`): the same look as every other page (``Pages/stylesheet``) plus a wider
/// layout with navigation, tables and forms. Each page is a view model (a ``ConsolePage`` struct built by the server)
/// and its template (`Templates/console-*.mustache`); values are HTML-escaped by the templates, and view models
/// never hold secrets (client secrets are shown as set / not set only).
public enum ConsolePages {
    /// One entry of the navigation bar.
    public struct NavItem: Sendable {
        public var label: String
        public var href: String
        /// Whether the section follows the scope picker (a tenant's pages are under `/console/t/<tenant>`).
        public var scoped: Bool
        public init(_ label: String, href: String, scoped: Bool = false) {
            self.label = label
            self.href = href
            self.scoped = scoped
        }
    }

    /// The console's sections, in navigation order.
    public static let navigation: [NavItem] = [
        NavItem("Overview", href: "/console"), NavItem("Users", href: "/console/users", scoped: true),
        NavItem("Sign-in method", href: "/console/providers", scoped: true), NavItem("Phone", href: "/console/phone"), NavItem("Tenants", href: "/console/tenants"),
        NavItem("Settings", href: "/console/settings"), NavItem("Blocking functions", href: "/console/blocking-functions", scoped: true),
        NavItem("Templates", href: "/console/templates"),
        NavItem("Apps", href: "/console/apps"), NavItem("Service accounts", href: "/console/service-accounts"),
        NavItem("Signing keys", href: "/console/keys"), NavItem("Audit log", href: "/console/audit"),
    ]

    /// ``Pages/stylesheet`` and the console's additions (`Templates/console.css`) for its wider pages.
    static let stylesheet = Pages.stylesheet + "\n" + Templates.consoleStylesheet

    /// The script the pages share (`Templates/console.js`): copy buttons, confirmations, busy buttons (no build
    /// step, no inline script).
    public static var script: String { Templates.consoleScript }

    /// The console pages' `Content-Security-Policy`: the console's own script only, forms to itself.
    public static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; img-src 'self' data:; "
        + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    /// What `console-layout.mustache` reads: the frame around every console page.
    struct LayoutModel {
        struct NavLink {
            let label: String
            let href: String
            let current: Bool
        }

        let title: String
        let stylesheet = ConsolePages.stylesheet
        let projectId: String
        /// The rendered page body (inserted unescaped: it is the output of an escaping template).
        let body: String
        let nav: [NavLink]
        let signedIn: Bool
        let adminName: String?
        let csrf: String?
        let flash: String?
        let error: String?
        /// The scope picker and the sentence saying which scope the page shows (nil: no picker).
        let scope: ConsoleScopeBar?
    }

    /// What a page body sees besides its own view model: the session's CSRF token and the project ID (the body is
    /// rendered inside `{{#page}}`, so names the page does not answer are looked up here).
    struct BodyScope<Page: ConsolePage> {
        let csrf: String
        let projectId: String
        /// Where the scoped pages' links and forms go: `/console`, or `/console/t/<tenant>` in a tenant.
        let base: String
        let page: Page
    }

    /// Renders the console page `page` inside the layout. `adminName`/`csrf` are nil on the login page (no
    /// navigation). The title is the page's own ``ConsolePage/pageTitle`` when it has one, else `title`. `current`
    /// is the section's project address (`/console/users` in a tenant too); `scope` the picker (its `base` is
    /// where the scoped sections' links and the body's `{{base}}` go).
    public static func render(_ page: some ConsolePage, title: String, projectId: String, current: String?, adminName: String?,
                              csrf: String?, flash: String? = nil, error: String? = nil, scope: ConsoleScopeBar? = nil) -> String {
        let base = scope?.base ?? "/console"
        let body = Templates.render(BodyScope(csrf: csrf ?? "", projectId: projectId, base: base, page: page),
                                    Templates.bodyName(type(of: page).template))
        let signedIn = adminName != nil && csrf != nil
        let layout = LayoutModel(
            title: page.pageTitle ?? title, projectId: projectId, body: body,
            nav: navigation.map { item in
                LayoutModel.NavLink(label: item.label, href: item.scoped ? base + String(item.href.dropFirst("/console".count)) : item.href,
                                    current: item.href == current)
            },
            signedIn: signedIn, adminName: signedIn ? adminName : nil, csrf: signedIn ? csrf : nil,
            flash: Pages.nonEmpty(flash), error: Pages.nonEmpty(error), scope: signedIn ? scope : nil)
        return Templates.render(layout, PageTemplate.consoleLayout.rawValue)
    }
}

/// The view model of one console page: a struct whose stored properties are what its template reads (swift-mustache
/// reads them by reflection, so computed properties are invisible to templates). Optional values that are nil, like
/// absent keys, leave their `{{#section}}` out; use nil, not "", for "nothing to show".
public protocol ConsolePage: Sendable {
    /// The template that renders this page.
    static var template: ConsoleTemplate { get }
    /// The page's title when it depends on its data (a user's email); nil: the route's title.
    var pageTitle: String? { get }
}

extension ConsolePage {
    /// No title of its own.
    public var pageTitle: String? { nil }
}
