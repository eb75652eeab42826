import HearthPages

// The console pages' view models: one struct per page, its stored properties named as its template
// (`Sources/HearthPages/Templates/console-*.mustache`) reads them. Every page body also sees `csrf` and `projectId`.
// Optional values are nil, never "", when there is nothing to show (an empty string opens a mustache section).

/// The page a login link lands on; it moves on to `/console` by itself.
struct SignedInPage: ConsolePage {
    static let template = ConsoleTemplate.signedIn
    let adminName: String
}

/// An empty body under the layout's error message.
struct BlankPage: ConsolePage {
    static let template = ConsoleTemplate.blank
}

/// The console's sign-in form.
struct ConsoleLoginPage: ConsolePage {
    static let template = ConsoleTemplate.login
    /// The login form's own CSRF token (the login cookie's value).
    let loginCsrf: String
}

/// `/console`: totals, the sign-ins chart and refusals.
struct OverviewPage: ConsolePage {
    static let template = ConsoleTemplate.overview

    struct LegendEntry {
        let provider: String
        let color: String
        let count: String
    }

    struct Refusal {
        let reason: String
        let count: String
    }

    /// Stacked bars, one per day, one colour per provider (`console-chart.mustache`).
    struct Chart {
        struct Bar {
            let x: String
            let y: String
            let width: String
            let height: String
            let fill: String
            let day: String
            let provider: String
            let value: Int
        }

        /// A date under the axis.
        struct Label {
            let x: String
            let y: Int
            let text: String
        }

        struct Day {
            let bars: [Bar]
            let label: Label?
        }

        let width: Int
        let height: Int
        let left: Double
        let right: Double
        let baseline: Double
        let baselineLabel: Int
        let maximum: Int
        let days: [Day]
    }

    let usersTotal: String
    let usersNew: String
    let signInsTotal: String
    let refusedTotal: String
    let chart: Chart
    let legend: [LegendEntry]
    let refusals: [Refusal]
}

/// `/console/users`: a page of users, a search, the add-user form.
struct UsersPage: ConsolePage {
    static let template = ConsoleTemplate.users

    struct Row {
        /// The row's position (the ids of its UID field and copy button).
        let index: Int
        let uid: String
        let href: String
        let identifier: String
        let disabled: Bool
        let providers: [String]
        let created: String
        let lastSignIn: String
    }

    let caption: String
    let users: [Row]
    let query: String?
    let previous: String?
    let next: String?
}

/// `/console/user`: one user's facts, linked providers, account actions and custom claims.
struct UserPage: ConsolePage {
    static let template = ConsoleTemplate.user

    struct Fact {
        let label: String
        let value: String
    }

    struct LinkedProvider {
        let providerId: String
        let detail: String
    }

    let pageTitle: String?
    let uid: String
    let disabled: Bool
    let deleteHref: String
    let facts: [Fact]
    let providers: [LinkedProvider]
    let claims: String
}

/// `/console/user/delete`: the confirmation.
struct ConfirmDeletePage: ConsolePage {
    static let template = ConsoleTemplate.confirmDelete
    let uid: String
    let identifier: String
    let backHref: String
}

/// `/console/providers`: every sign-in provider with its state.
struct ProvidersPage: ConsolePage {
    static let template = ConsoleTemplate.providers

    struct Row {
        let name: String
        let providerId: String
        var enabled: Bool
        /// Whether the row has an Enable/Disable button.
        let toggle: Bool
        var status: String
        let editHref: String?
    }

    let providers: [Row]
}

/// `/console/provider`: a provider's configuration form (and the same form again, with errors, after a refused save).
struct ProviderPage: ConsolePage {
    static let template = ConsoleTemplate.provider

    var pageTitle: String?
    var providerId: String
    let isNew: Bool
    let isOIDC: Bool
    let isMicrosoft: Bool
    let redirectURI: String
    let hint: String
    var clientId: String
    var issuer: String
    var displayName: String
    let secretSet: Bool
    let secretState: String
    var enabled: Bool
    var tokenVault: Bool
    let vaultKeys: Bool
    var nativeClientIds: String
    var allowedTenants: String
    let canTest: Bool
    /// The refused save's message above the form.
    var formError: String?
    /// The refused save's message beside the field it concerns.
    var providerIdError: String?
    var issuerError: String?
    var clientIdError: String?
    var clientSecretError: String?
    var allowedTenantsError: String?
    var nativeClientIdsError: String?
}

/// The result of a provider's configuration check.
struct ProviderTestPage: ConsolePage {
    static let template = ConsoleTemplate.providerTest

    struct Check {
        let name: String
        let status: String
        let detail: String
        let passed: Bool
        let failed: Bool
        let fix: String?
    }

    let pageTitle: String?
    let providerId: String
    let ok: Bool
    let backHref: String
    let summary: String
    let checks: [Check]
}

/// `/console/settings`: account linking, enumeration protection, user actions, authorized domains.
struct SettingsPage: ConsolePage {
    static let template = ConsoleTemplate.settings

    struct Domain {
        let domain: String
    }

    let onePerEmail: Bool
    let enumeration: Bool
    let signupAllowed: Bool
    let deletionAllowed: Bool
    let domains: [Domain]
}

/// `/console/apps`: registered apps and the forms that add them.
struct AppsPage: ConsolePage {
    static let template = ConsoleTemplate.apps

    struct App {
        let id: String
        let name: String
        let kind: String
        let redirect: String
    }

    let caption: String
    let apps: [App]
}

/// `/console/service-accounts`: service-account keys (public halves only).
struct ServiceAccountsPage: ConsolePage {
    static let template = ConsoleTemplate.serviceAccounts

    struct Key {
        let email: String
        let keyId: String
        let created: String
    }

    let caption: String
    let keys: [Key]
}

/// `/console/keys`: ID-token signing keys and the rotation schedule.
struct SigningKeysPage: ConsolePage {
    static let template = ConsoleTemplate.keys

    struct Key {
        let kid: String
        let state: String
        let created: String
        let activates: String
    }

    let rotationHours: String
    let prepublishMinutes: String
    let keys: [Key]
}

/// `/console/audit`: admin writes, newest first.
struct AuditPage: ConsolePage {
    static let template = ConsoleTemplate.audit

    struct Entry {
        let time: String
        let actor: String
        let action: String
        let target: String
        let detail: String
    }

    let entries: [Entry]
    let next: String?
}
