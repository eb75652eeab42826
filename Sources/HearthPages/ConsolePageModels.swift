
// The console pages' view models: one struct per page, its stored properties named as its template
// (`Sources/HearthPages/Templates/console-*.mustache`) reads them. Every page body also sees `csrf` and `projectId`.
// Optional values are nil, never "", when there is nothing to show (an empty string opens a mustache section).

/// The page a login link lands on; it moves on to `/console` by itself.
public struct SignedInPage: ConsolePage {
    public static let template = ConsoleTemplate.signedIn
    public let adminName: String

    public init(adminName: String) {
        self.adminName = adminName
    }
}

/// An empty body under the layout's error message.
public struct BlankPage: ConsolePage {
    public static let template = ConsoleTemplate.blank
    public init() {}
}

/// The console's sign-in form.
public struct ConsoleLoginPage: ConsolePage {
    public static let template = ConsoleTemplate.login
    /// The login form's own CSRF token (the login cookie's value).
    public let loginCsrf: String

    public init(loginCsrf: String) {
        self.loginCsrf = loginCsrf
    }
}

/// `/console`: totals, the sign-ins chart and refusals.
public struct OverviewPage: ConsolePage {
    public static let template = ConsoleTemplate.overview

    public struct LegendEntry: Sendable {
        public let provider: String
        public let color: String
        public let count: String

        public init(provider: String, color: String, count: String) {
            self.provider = provider
            self.color = color
            self.count = count
        }
    }

    public struct Refusal: Sendable {
        public let reason: String
        public let count: String

        public init(reason: String, count: String) {
            self.reason = reason
            self.count = count
        }
    }

    /// Stacked bars, one per day, one colour per provider (`console-chart.mustache`).
    public struct Chart: Sendable {
        public struct Bar: Sendable {
            public let x: String
            public let y: String
            public let width: String
            public let height: String
            public let fill: String
            public let day: String
            public let provider: String
            public let value: Int

            public init(x: String, y: String, width: String, height: String, fill: String, day: String, provider: String, value: Int) {
                self.x = x
                self.y = y
                self.width = width
                self.height = height
                self.fill = fill
                self.day = day
                self.provider = provider
                self.value = value
            }
        }

        /// A date under the axis.
        public struct Label: Sendable {
            public let x: String
            public let y: Int
            public let text: String

            public init(x: String, y: Int, text: String) {
                self.x = x
                self.y = y
                self.text = text
            }
        }

        public struct Day: Sendable {
            public let bars: [Bar]
            public let label: Label?

            public init(bars: [Bar], label: Label? = nil) {
                self.bars = bars
                self.label = label
            }
        }

        public let width: Int
        public let height: Int
        public let left: Double
        public let right: Double
        public let baseline: Double
        public let baselineLabel: Int
        public let maximum: Int
        public let days: [Day]

        public init(width: Int, height: Int, left: Double, right: Double, baseline: Double, baselineLabel: Int, maximum: Int, days: [Day]) {
            self.width = width
            self.height = height
            self.left = left
            self.right = right
            self.baseline = baseline
            self.baselineLabel = baselineLabel
            self.maximum = maximum
            self.days = days
        }
    }

    public let usersTotal: String
    public let usersNew: String
    public let signInsTotal: String
    public let refusedTotal: String
    public let chart: Chart
    public let legend: [LegendEntry]
    public let refusals: [Refusal]

    /// Whether mail is configured (nil: not shown).
    public let mail: MailStatus?
    /// The blocking functions whose last call failed, in a sentence (nil: none; issue 39).
    public let blockingOutage: String?
    /// Why SMS sends stop or lean on fewer defences now, a sentence each (issue 40): the daily budget used up, a
    /// production project without app verification (refused, or turned off explicitly), no SMS gateway.
    public let smsAlerts: [String]
    /// How old `usersTotal` is when it was not counted for this view ("counted 40 s ago"; nil: counted now). The
    /// count is made at most once a minute (issue 41).
    public let usersCounted: String?

    public init(usersTotal: String, usersNew: String, signInsTotal: String, refusedTotal: String, chart: Chart, legend: [LegendEntry], refusals: [Refusal],
                mail: MailStatus? = nil, blockingOutage: String? = nil, smsAlerts: [String] = [], usersCounted: String? = nil) {
        self.usersCounted = usersCounted
        self.smsAlerts = smsAlerts
        self.mail = mail
        self.blockingOutage = blockingOutage
        self.usersTotal = usersTotal
        self.usersNew = usersNew
        self.signInsTotal = signInsTotal
        self.refusedTotal = refusedTotal
        self.chart = chart
        self.legend = legend
        self.refusals = refusals
    }
}

/// `/console/users`: a page of users, a search, the add-user form.
public struct UsersPage: ConsolePage {
    public static let template = ConsoleTemplate.users

    public struct Row: Sendable {
        /// The row's position (the ids of its UID field and copy button).
        public let index: Int
        public let uid: String
        public let href: String
        public let identifier: String
        public let disabled: Bool
        public let providers: [String]
        public let created: String
        public let lastSignIn: String
        /// Whether the user has a second factor (the list's "2FA" tag).
        public let secondFactor: Bool
        /// The user's phone number (E.164; issue 40), "—" when none.
        public let phone: String

        public init(index: Int, uid: String, href: String, identifier: String, disabled: Bool, providers: [String], created: String, lastSignIn: String,
                    secondFactor: Bool = false, phone: String? = nil) {
            self.secondFactor = secondFactor
            self.phone = phone ?? "—"
            self.index = index
            self.uid = uid
            self.href = href
            self.identifier = identifier
            self.disabled = disabled
            self.providers = providers
            self.created = created
            self.lastSignIn = lastSignIn
        }
    }

    public let caption: String
    public let users: [Row]
    public let query: String?
    public let previous: String?
    public let next: String?

    public init(caption: String, users: [Row], query: String? = nil, previous: String? = nil, next: String? = nil) {
        self.caption = caption
        self.users = users
        self.query = query
        self.previous = previous
        self.next = next
    }
}

/// `/console/user`: one user's facts, linked providers, account actions and custom claims.
public struct UserPage: ConsolePage {
    public static let template = ConsoleTemplate.user

    public struct Fact: Sendable {
        public let label: String
        public let value: String

        public init(label: String, value: String) {
            self.label = label
            self.value = value
        }
    }

    public struct LinkedProvider: Sendable {
        public let providerId: String
        public let detail: String

        public init(providerId: String, detail: String) {
            self.providerId = providerId
            self.detail = detail
        }
    }

    /// One enrolled second factor (never its secret).
    public struct SecondFactor: Sendable {
        /// The name the user gave it (or "Authenticator app").
        public let displayName: String
        /// Its kind as a word (`TOTP`).
        public let kind: String
        public let enrolledAt: String
        /// Firebase's `mfaEnrollmentId` (what `hearth users mfa remove --factor` takes).
        public let enrollmentId: String

        public init(displayName: String, kind: String = "TOTP", enrolledAt: String, enrollmentId: String) {
            self.displayName = displayName
            self.kind = kind
            self.enrolledAt = enrolledAt
            self.enrollmentId = enrollmentId
        }
    }

    /// One registered passkey (never its public key).
    public struct Passkey: Sendable {
        /// The name the user gave it (or "Passkey").
        public let name: String
        /// Unpadded base64url, what `hearth users passkeys remove` takes.
        public let credentialId: String
        /// The credential id shortened for the table (the whole id is in the row's form and its `title`).
        public let shortId: String
        public let registered: String
        /// When it last signed in, or "never".
        public let lastUsed: String
        /// "synced" (backup eligible: a passkey manager keeps it) or "device-bound".
        public let storage: String

        public init(name: String, credentialId: String, shortId: String, registered: String, lastUsed: String, storage: String) {
            self.name = name
            self.credentialId = credentialId
            self.shortId = shortId
            self.registered = registered
            self.lastUsed = lastUsed
            self.storage = storage
        }
    }

    public let pageTitle: String?
    public let uid: String
    public let disabled: Bool
    public let deleteHref: String
    public let facts: [Fact]
    public let providers: [LinkedProvider]
    public let claims: String
    /// The user's second factors, oldest first (empty: none).
    public let secondFactors: [SecondFactor]
    /// "7 of 10 recovery codes left" and the like; nil when the user has none.
    public let recoveryCodes: String?
    /// The user's passkeys, oldest first (empty: none).
    public let passkeys: [Passkey]

    public init(pageTitle: String? = nil, uid: String, disabled: Bool, deleteHref: String, facts: [Fact], providers: [LinkedProvider], claims: String,
                secondFactors: [SecondFactor] = [], recoveryCodes: String? = nil, passkeys: [Passkey] = []) {
        self.passkeys = passkeys
        self.secondFactors = secondFactors
        self.recoveryCodes = recoveryCodes
        self.pageTitle = pageTitle
        self.uid = uid
        self.disabled = disabled
        self.deleteHref = deleteHref
        self.facts = facts
        self.providers = providers
        self.claims = claims
    }
}

/// `/console/user/delete`: the confirmation.
public struct ConfirmDeletePage: ConsolePage {
    public static let template = ConsoleTemplate.confirmDelete
    public let uid: String
    public let identifier: String
    public let backHref: String

    public init(uid: String, identifier: String, backHref: String) {
        self.uid = uid
        self.identifier = identifier
        self.backHref = backHref
    }
}

/// `/console/providers`: every sign-in provider with its state.
public struct ProvidersPage: ConsolePage {
    public static let template = ConsoleTemplate.providers

    public struct Row: Sendable {
        public let name: String
        public let providerId: String
        public var enabled: Bool
        /// Whether the row has an Enable/Disable button.
        public let toggle: Bool
        public var status: String
        /// What the provider's settings allow, beside the status (Apple's web and native parts, Google's hosted domains).
        public var detail: String?
        public let editHref: String?

        public init(name: String, providerId: String, enabled: Bool, toggle: Bool, status: String, detail: String? = nil, editHref: String? = nil) {
            self.detail = detail
            self.name = name
            self.providerId = providerId
            self.enabled = enabled
            self.toggle = toggle
            self.status = status
            self.editHref = editHref
        }
    }

    public let providers: [Row]

    public init(providers: [Row]) {
        self.providers = providers
    }
}

/// `/console/provider`: a provider's configuration form (and the same form again, with errors, after a refused save).
public struct ProviderPage: ConsolePage {
    public static let template = ConsoleTemplate.provider

    public var pageTitle: String?
    public var providerId: String
    public let isNew: Bool
    public let isOIDC: Bool
    public let isMicrosoft: Bool
    public let redirectURI: String
    public let hint: String
    public var clientId: String
    public var issuer: String
    public var displayName: String
    public let secretSet: Bool
    public let secretState: String
    public var enabled: Bool
    public var tokenVault: Bool
    public let vaultKeys: Bool
    public var nativeClientIds: String
    public var allowedEntraTenants: String
    public let canTest: Bool
    /// `google.com`: the hosted-domain allow-list field.
    public var isGoogle: Bool
    /// `google.com`: the allowed Google Workspace domains, comma-separated.
    public var allowedHostedDomains: String
    /// The native client IDs field's label (what those IDs are at this provider).
    public var nativeClientIdsLabel: String
    /// The refused save's message above the form.
    public var formError: String?
    /// The refused save's message beside the field it concerns.
    public var providerIdError: String?
    public var issuerError: String?
    public var clientIdError: String?
    public var clientSecretError: String?
    public var allowedEntraTenantsError: String?
    public var nativeClientIdsError: String?
    public var allowedHostedDomainsError: String?

    public init(pageTitle: String? = nil, providerId: String, isNew: Bool, isOIDC: Bool, isMicrosoft: Bool, redirectURI: String, hint: String, clientId: String, issuer: String, displayName: String, secretSet: Bool, secretState: String, enabled: Bool, tokenVault: Bool, vaultKeys: Bool, nativeClientIds: String, allowedEntraTenants: String, canTest: Bool, isGoogle: Bool = false, allowedHostedDomains: String = "", nativeClientIdsLabel: String = "Native client IDs whose ID tokens are accepted (comma-separated, e.g. an MSAL app's ID)", formError: String? = nil, providerIdError: String? = nil, issuerError: String? = nil, clientIdError: String? = nil, clientSecretError: String? = nil, allowedEntraTenantsError: String? = nil, nativeClientIdsError: String? = nil, allowedHostedDomainsError: String? = nil) {
        self.isGoogle = isGoogle
        self.allowedHostedDomains = allowedHostedDomains
        self.nativeClientIdsLabel = nativeClientIdsLabel
        self.allowedHostedDomainsError = allowedHostedDomainsError
        self.pageTitle = pageTitle
        self.providerId = providerId
        self.isNew = isNew
        self.isOIDC = isOIDC
        self.isMicrosoft = isMicrosoft
        self.redirectURI = redirectURI
        self.hint = hint
        self.clientId = clientId
        self.issuer = issuer
        self.displayName = displayName
        self.secretSet = secretSet
        self.secretState = secretState
        self.enabled = enabled
        self.tokenVault = tokenVault
        self.vaultKeys = vaultKeys
        self.nativeClientIds = nativeClientIds
        self.allowedEntraTenants = allowedEntraTenants
        self.canTest = canTest
        self.formError = formError
        self.providerIdError = providerIdError
        self.issuerError = issuerError
        self.clientIdError = clientIdError
        self.clientSecretError = clientSecretError
        self.allowedEntraTenantsError = allowedEntraTenantsError
        self.nativeClientIdsError = nativeClientIdsError
    }
}

/// The result of a provider's configuration check.
public struct ProviderTestPage: ConsolePage {
    public static let template = ConsoleTemplate.providerTest

    public struct Check: Sendable {
        public let name: String
        public let status: String
        public let detail: String
        public let passed: Bool
        public let failed: Bool
        public let fix: String?

        public init(name: String, status: String, detail: String, passed: Bool, failed: Bool, fix: String? = nil) {
            self.name = name
            self.status = status
            self.detail = detail
            self.passed = passed
            self.failed = failed
            self.fix = fix
        }
    }

    public let pageTitle: String?
    public let providerId: String
    public let ok: Bool
    public let backHref: String
    public let summary: String
    public let checks: [Check]

    public init(pageTitle: String? = nil, providerId: String, ok: Bool, backHref: String, summary: String, checks: [Check]) {
        self.pageTitle = pageTitle
        self.providerId = providerId
        self.ok = ok
        self.backHref = backHref
        self.summary = summary
        self.checks = checks
    }
}

/// `/console/settings`: account linking, enumeration protection, user actions, authorized domains.
public struct SettingsPage: ConsolePage {
    public static let template = ConsoleTemplate.settings

    public struct Domain: Sendable {
        public let domain: String

        public init(domain: String) {
            self.domain = domain
        }
    }

    /// The "Two-step verification (TOTP)" card: the project's `mfa` setting and the clock check.
    public struct SecondFactors: Sendable {
        /// Whether users may enroll an authenticator app (`mfa.state` and the TOTP provider `ENABLED`).
        public let enabled: Bool
        /// `totpProviderConfig.adjacentIntervals`, 0…10.
        public let adjacentIntervals: Int
        /// What the intervals mean, in seconds.
        public let window: String
        /// The clock check: a throwaway key made for this page (never stored).
        public let clock: ClockCheck

        public init(enabled: Bool, adjacentIntervals: Int, window: String, clock: ClockCheck) {
            self.enabled = enabled
            self.adjacentIntervals = adjacentIntervals
            self.window = window
            self.clock = clock
        }
    }

    /// "Check your authenticator app against this server's clock": the QR code of a throwaway key, its URI, the
    /// form's nonce (the key is derived from it and the console session; neither the key nor the nonce is
    /// stored), and the result of the last check.
    public struct ClockCheck: Sendable {
        /// The `<svg>` of the QR code (``QRCode/svg(label:moduleSize:)``; inserted as markup).
        public let qrSVG: String
        /// The `otpauth://` URI the QR code holds.
        public let uri: String
        /// The key in base32, for apps without a camera.
        public let key: String
        public let nonce: String
        /// The answer to the code typed; nil before a check.
        public let result: Result?

        public struct Result: Sendable {
            public let ok: Bool
            public let message: String

            public init(ok: Bool, message: String) {
                self.ok = ok
                self.message = message
            }
        }

        public init(qrSVG: String, uri: String, key: String, nonce: String, result: Result? = nil) {
            self.qrSVG = qrSVG
            self.uri = uri
            self.key = key
            self.nonce = nonce
            self.result = result
        }
    }

    /// The "Passkeys" card: the project's `passkeys` setting.
    public struct Passkeys: Sendable {
        public let enabled: Bool
        /// The stored rp id ("" for the default), what the field holds.
        public let rpId: String
        /// The default rp id: the host of the server's public URL.
        public let defaultRpId: String
        /// The rp id in force.
        public let effectiveRpId: String
        /// The added origins, one per line (the textarea's text).
        public let allowedOrigins: String
        /// The origins always accepted (the server's own, `https://<rp id>`).
        public let builtInOrigins: [String]
        /// `userVerification` is `REQUIRED` (else `PREFERRED`).
        public let verificationRequired: Bool
        /// The rp id in force is an IP address: browsers refuse passkeys there (the card says so).
        public let rpIdIsIPAddress: Bool

        public init(enabled: Bool, rpId: String, defaultRpId: String, effectiveRpId: String, allowedOrigins: String,
                    builtInOrigins: [String], verificationRequired: Bool, rpIdIsIPAddress: Bool = false) {
            self.rpIdIsIPAddress = rpIdIsIPAddress
            self.enabled = enabled
            self.rpId = rpId
            self.defaultRpId = defaultRpId
            self.effectiveRpId = effectiveRpId
            self.allowedOrigins = allowedOrigins
            self.builtInOrigins = builtInOrigins
            self.verificationRequired = verificationRequired
        }
    }

    public let onePerEmail: Bool
    public let enumeration: Bool
    public let signupAllowed: Bool
    public let deletionAllowed: Bool
    public let domains: [Domain]
    /// The second-factor card; nil: not shown.
    public let secondFactors: SecondFactors?
    /// The passkeys card; nil: not shown.
    public let passkeys: Passkeys?

    public init(onePerEmail: Bool, enumeration: Bool, signupAllowed: Bool, deletionAllowed: Bool, domains: [Domain],
                secondFactors: SecondFactors? = nil, passkeys: Passkeys? = nil) {
        self.passkeys = passkeys
        self.secondFactors = secondFactors
        self.onePerEmail = onePerEmail
        self.enumeration = enumeration
        self.signupAllowed = signupAllowed
        self.deletionAllowed = deletionAllowed
        self.domains = domains
    }
}

/// `/console/apps`: registered apps and the forms that add them.
public struct AppsPage: ConsolePage {
    public static let template = ConsoleTemplate.apps

    public struct App: Sendable {
        public let id: String
        public let name: String
        public let kind: String
        public let redirect: String
        /// `TEAMID.bundle.id` as listed in `/.well-known/apple-app-site-association` (passkeys), or "—".
        public let webCredentials: String

        public init(id: String, name: String, kind: String, redirect: String, webCredentials: String = "—") {
            self.id = id
            self.name = name
            self.kind = kind
            self.redirect = redirect
            self.webCredentials = webCredentials
        }
    }

    public let caption: String
    public let apps: [App]

    public init(caption: String, apps: [App]) {
        self.caption = caption
        self.apps = apps
    }
}

/// `/console/service-accounts`: service-account keys (public halves only).
public struct ServiceAccountsPage: ConsolePage {
    public static let template = ConsoleTemplate.serviceAccounts

    public struct Key: Sendable {
        public let email: String
        public let keyId: String
        public let created: String

        public init(email: String, keyId: String, created: String) {
            self.email = email
            self.keyId = keyId
            self.created = created
        }
    }

    public let caption: String
    public let keys: [Key]

    public init(caption: String, keys: [Key]) {
        self.caption = caption
        self.keys = keys
    }
}

/// `/console/keys`: ID-token signing keys and the rotation schedule.
public struct SigningKeysPage: ConsolePage {
    public static let template = ConsoleTemplate.keys

    public struct Key: Sendable {
        public let kid: String
        public let state: String
        public let created: String
        public let activates: String

        public init(kid: String, state: String, created: String, activates: String) {
            self.kid = kid
            self.state = state
            self.created = created
            self.activates = activates
        }
    }

    public let rotationHours: String
    public let prepublishMinutes: String
    public let keys: [Key]

    public init(rotationHours: String, prepublishMinutes: String, keys: [Key]) {
        self.rotationHours = rotationHours
        self.prepublishMinutes = prepublishMinutes
        self.keys = keys
    }
}

/// `/console/audit`: admin writes, newest first.
public struct AuditPage: ConsolePage {
    public static let template = ConsoleTemplate.audit

    public struct Entry: Sendable {
        public let time: String
        public let actor: String
        public let action: String
        public let target: String
        public let detail: String

        public init(time: String, actor: String, action: String, target: String, detail: String) {
            self.time = time
            self.actor = actor
            self.action = action
            self.target = target
            self.detail = detail
        }
    }

    public let entries: [Entry]
    public let next: String?

    public init(entries: [Entry], next: String? = nil) {
        self.entries = entries
        self.next = next
    }
}

/// Where the project's email goes (the overview's and the Templates page's banner).
public struct MailStatus: Sendable {
    /// "SMTP relay smtp://…", "the dev mailbox (/__dev/mail); no SMTP relay", ….
    public let summary: String
    /// `success` (a relay), `info` (the dev mailbox only), `warning` (nowhere).
    public let tone: String
    /// What goes wrong without a relay, and the setting to fix it.
    public let warning: String?
    /// The dev mailbox's page exists.
    public let devMailbox: Bool

    public init(summary: String, tone: String, warning: String?, devMailbox: Bool) {
        self.summary = summary
        self.tone = tone
        self.warning = warning
        self.devMailbox = devMailbox
    }
}

/// `/console/templates`: the email templates of the five kinds, each in its own form, and `%APP_NAME%`.
public struct TemplatesPage: ConsolePage {
    public static let template = ConsoleTemplate.templates

    /// One kind's template, as saved (or as typed, after a refused save).
    public struct Entry: Sendable {
        /// `resetPassword`, … (the form's `kind`).
        public let kind: String
        public let title: String
        public let customized: Bool
        /// The sender it goes out as (`"Name" <local@domain>`).
        public let sender: String
        public let senderDisplayName: String
        public let senderLocalPart: String
        public let replyTo: String
        public let subject: String
        public let body: String
        public let html: Bool
        /// Shown open (just saved, or refused).
        public let open: Bool
        /// Why it was not saved or sent.
        public let error: String?
        /// The address last typed for a test email.
        public let testTo: String

        public init(kind: String, title: String, customized: Bool, sender: String, senderDisplayName: String, senderLocalPart: String,
                    replyTo: String, subject: String, body: String, html: Bool, open: Bool, error: String? = nil, testTo: String = "") {
            self.kind = kind
            self.title = title
            self.customized = customized
            self.sender = sender
            self.senderDisplayName = senderDisplayName
            self.senderLocalPart = senderLocalPart
            self.replyTo = replyTo
            self.subject = subject
            self.body = body
            self.html = html
            self.open = open
            self.error = Pages.nonEmpty(error)
            self.testTo = testTo
        }
    }

    public let mail: MailStatus
    /// `%APP_NAME%` as saved ("" when it is the project ID).
    public let appName: String
    public let templates: [Entry]

    public init(mail: MailStatus, appName: String, templates: [Entry]) {
        self.mail = mail
        self.appName = appName
        self.templates = templates
    }
}

/// `/console/provider?id=apple.com`: Sign in with Apple's form. The services id, team id and key id are shown; the
/// `.p8` key never is (only whether one is on file, and its key id): replacing it means uploading it again.
public struct AppleProviderPage: ConsolePage {
    public static let template = ConsoleTemplate.appleProvider

    public var pageTitle: String?
    /// `<public URL>/__/auth/handler`, the Return URL to register with the services id.
    public let returnURL: String
    /// The public URL's host, the domain to register with the services id.
    public let domain: String
    /// Set when the public URL is not HTTPS (Apple refuses such return URLs).
    public let httpsWarning: String?
    public var servicesId: String
    public var teamId: String
    public var keyId: String
    /// Whether a `.p8` key is on file (the web flow works).
    public let keyOnFile: Bool
    /// "Key on file (key ID …)" or "No key: native sign-in only".
    public let keyState: String
    /// The bundle ids, one per line.
    public var bundleIds: String
    public var enabled: Bool
    public var tokenVault: Bool
    public let vaultKeys: Bool
    public let canTest: Bool
    /// The refused save's message above the form.
    public var formError: String?
    /// The refused save's message beside the field it concerns.
    public var servicesIdError: String?
    public var teamIdError: String?
    public var keyIdError: String?
    public var privateKeyError: String?
    public var bundleIdsError: String?

    public init(pageTitle: String? = nil, returnURL: String, domain: String, httpsWarning: String?, servicesId: String, teamId: String,
                keyId: String, keyOnFile: Bool, keyState: String, bundleIds: String, enabled: Bool, tokenVault: Bool, vaultKeys: Bool,
                canTest: Bool, formError: String? = nil, servicesIdError: String? = nil, teamIdError: String? = nil,
                keyIdError: String? = nil, privateKeyError: String? = nil, bundleIdsError: String? = nil) {
        self.pageTitle = pageTitle
        self.returnURL = returnURL
        self.domain = domain
        self.httpsWarning = httpsWarning
        self.servicesId = servicesId
        self.teamId = teamId
        self.keyId = keyId
        self.keyOnFile = keyOnFile
        self.keyState = keyState
        self.bundleIds = bundleIds
        self.enabled = enabled
        self.tokenVault = tokenVault
        self.vaultKeys = vaultKeys
        self.canTest = canTest
        self.formError = formError
        self.servicesIdError = servicesIdError
        self.teamIdError = teamIdError
        self.keyIdError = keyIdError
        self.privateKeyError = privateKeyError
        self.bundleIdsError = bundleIdsError
    }
}
