import Foundation

// The console's tenants: the scope picker in the layout, the Tenants page, a tenant's edit page and its delete
// confirmation (templates `console-tenants`, `console-tenant`, `console-confirm-delete-tenant`).

/// The scope picker under the navigation bar: the project or one of its tenants. Users and Sign-in method follow it
/// (their addresses start with ``base``); the other sections are the project's, which ``note`` says.
public struct ConsoleScopeBar: Sendable {
    /// One entry of the picker.
    public struct Choice: Sendable {
        /// The tenant id; "" for the project.
        public let id: String
        public let label: String
        public let selected: Bool

        public init(id: String, label: String, selected: Bool) {
            self.id = id
            self.label = label
            self.selected = selected
        }
    }

    /// Where the scoped sections live: `/console` for the project, `/console/t/<tenant id>` for a tenant.
    public let base: String
    /// The project first, then the tenants (the current one always among them).
    public let choices: [Choice]
    /// The scoped section the picker opens (`users` or `providers`).
    public let section: String
    /// One sentence: which scope this page shows.
    public let note: String
    /// The tenant shown, as a tag beside the picker (nil: the project).
    public let tenantLabel: String?
    /// More tenants than the picker lists (the Tenants page lists them all).
    public let more: Bool

    public init(base: String, choices: [Choice], section: String, note: String, tenantLabel: String?, more: Bool) {
        self.base = base
        self.choices = choices
        self.section = section
        self.note = note
        self.tenantLabel = tenantLabel
        self.more = more
    }
}

/// `/console/tenants`: the project's tenants and the create form.
public struct TenantsPage: ConsolePage {
    public static let template = ConsoleTemplate.tenants

    public struct Row: Sendable {
        /// The row's position (the ids of its id field and copy button).
        public let index: Int
        public let id: String
        public let displayName: String
        public let href: String
        public let usersHref: String
        public let providersHref: String
        /// The sign-in methods that are on ("Email/password", "Email link", "Anonymous").
        public let signIn: [String]
        /// `disableAuth`: nobody signs in and its users cannot be managed.
        public let authDisabled: Bool
        public let created: String

        public init(index: Int, id: String, displayName: String, href: String, usersHref: String, providersHref: String, signIn: [String],
                    authDisabled: Bool, created: String) {
            self.index = index
            self.id = id
            self.displayName = displayName
            self.href = href
            self.usersHref = usersHref
            self.providersHref = providersHref
            self.signIn = signIn
            self.authDisabled = authDisabled
            self.created = created
        }
    }

    public let caption: String
    public let tenants: [Row]
    public let next: String?
    /// The create form (as typed after a refusal).
    public var form: TenantForm

    public init(caption: String, tenants: [Row], next: String? = nil, form: TenantForm) {
        self.caption = caption
        self.tenants = tenants
        self.next = next
        self.form = form
    }
}

/// The fields of a tenant's create or edit form, and a refusal beside the field it concerns.
public struct TenantForm: Sendable {
    public var displayName: String
    public var allowPasswordSignup: Bool
    public var enableEmailLinkSignin: Bool
    public var enableAnonymousUser: Bool
    public var disableAuth: Bool
    /// Nothing saved: the line above the form.
    public var formError: String?
    /// The display name's refusal (`INVALID_DISPLAY_NAME`).
    public var displayNameError: String?

    public init(displayName: String = "", allowPasswordSignup: Bool = false, enableEmailLinkSignin: Bool = false, enableAnonymousUser: Bool = false,
                disableAuth: Bool = false, formError: String? = nil, displayNameError: String? = nil) {
        self.displayName = displayName
        self.allowPasswordSignup = allowPasswordSignup
        self.enableEmailLinkSignin = enableEmailLinkSignin
        self.enableAnonymousUser = enableAnonymousUser
        self.disableAuth = disableAuth
        self.formError = formError
        self.displayNameError = displayNameError
    }
}

/// `/console/tenant?id=…`: one tenant's facts, its edit form, links to its users and sign-in methods, delete.
public struct TenantPage: ConsolePage {
    public static let template = ConsoleTemplate.tenant
    public let pageTitle: String?
    public let id: String
    public let created: String
    public let usersHref: String
    public let providersHref: String
    public let deleteHref: String
    public var form: TenantForm

    public init(pageTitle: String?, id: String, created: String, usersHref: String, providersHref: String, deleteHref: String, form: TenantForm) {
        self.pageTitle = pageTitle
        self.id = id
        self.created = created
        self.usersHref = usersHref
        self.providersHref = providersHref
        self.deleteHref = deleteHref
        self.form = form
    }
}

/// `/console/tenant/delete?id=…`: asks before a tenant and everything it holds are deleted.
public struct ConfirmDeleteTenantPage: ConsolePage {
    public static let template = ConsoleTemplate.confirmDeleteTenant
    public let id: String
    public let displayName: String
    /// Who goes with the tenant: "Its 3 users", "Its 1 user", "Its users (it has none now)".
    public let users: String
    public let backHref: String

    public init(id: String, displayName: String, users: String, backHref: String) {
        self.id = id
        self.displayName = displayName
        self.users = users
        self.backHref = backHref
    }
}
