/// `/console/blocking-functions` (and `/console/t/<tenant>/blocking-functions`): the project's blocking functions
/// (issue 39) — the function URL per event, the credentials forwarded, a "Send a test event" button per configured
/// event with its answer, and each event's last outcome (an outage: the last error, when, how many failures in a
/// row). In a tenant the page shows the project's functions, which that tenant's users go through, without the forms.
public struct BlockingFunctionsPage: ConsolePage {
    public static let template = ConsoleTemplate.blockingFunctions

    /// One event: its field in the form, its last outcome, and the test event's answer when one was just sent.
    public struct Event: Sendable {
        /// Firebase's short name (`beforeCreate`): the form field's name.
        public var name: String
        /// The event in words ("Before a user is created").
        public var title: String
        /// When it fires and what the function may do.
        public var when: String
        /// The function URL as stored (or as typed after a refused save); "" when none.
        public var functionUri: String
        /// Whether a function is stored for the event (the test button is shown only then).
        public var configured: Bool
        /// When its URL was last set (display time); nil when none.
        public var updated: String?
        /// The refusal of a save, beside this field.
        public var error: String?
        /// The last call's outcome; nil when the function was not called since the server started.
        public var health: Health?
        /// The answer to a test event just sent to this event's function.
        public var test: TestResult?

        public init(name: String, title: String, when: String, functionUri: String, configured: Bool, updated: String? = nil,
                    error: String? = nil, health: Health? = nil, test: TestResult? = nil) {
            self.name = name
            self.title = title
            self.when = when
            self.functionUri = functionUri
            self.configured = configured
            self.updated = updated
            self.error = error
            self.health = health
            self.test = test
        }
    }

    /// The last outcome of an event's calls (the server's memory since it started).
    public struct Health: Sendable {
        /// Whether the last call succeeded (an answer the server could use, refusals included).
        public var ok: Bool
        /// One line: "Answered 200 in 84 ms at 2026-11-28 10:02" or "Failing since …: 3 failures in a row".
        public var summary: String
        /// The last error's message (nil when the last call succeeded).
        public var lastError: String?
        /// When the function last answered well, when it is failing now.
        public var lastSuccess: String?

        public init(ok: Bool, summary: String, lastError: String? = nil, lastSuccess: String? = nil) {
            self.ok = ok
            self.summary = summary
            self.lastError = lastError
            self.lastSuccess = lastSuccess
        }
    }

    /// A test event's answer: never the JWT that was sent nor tokens, only what the function said.
    public struct TestResult: Sendable {
        /// The function answered with something the server accepts (an allow, a change, or a refusal it would pass on).
        public var ok: Bool
        /// "HTTP 200" or "no answer".
        public var status: String
        /// "84 ms".
        public var duration: String
        /// What it means in one sentence ("Allowed: the user would be created unchanged.").
        public var summary: String
        /// The answer's body or the error, shortened (nil: nothing to show).
        public var detail: String?

        public init(ok: Bool, status: String, duration: String, summary: String, detail: String? = nil) {
            self.ok = ok
            self.status = status
            self.duration = duration
            self.summary = summary
            self.detail = detail
        }
    }

    public var events: [Event]
    /// `forwardInboundCredentials`: the provider's ID, access and refresh tokens in beforeCreate/beforeSignIn events.
    public var forwardIdToken: Bool
    public var forwardAccessToken: Bool
    public var forwardRefreshToken: Bool
    /// Whether the forms are shown (false in a tenant: the functions are the project's).
    public var editable: Bool
    /// In a tenant: the sentence saying the project's functions apply to it.
    public var tenantNote: String?
    /// The project's page (the link from a tenant's).
    public var projectHref: String
    /// What URLs the server accepts (https only, loopback over http in --dev, private networks or not).
    public var policy: String
    /// Above the form after a refused save.
    public var formError: String?
    /// Events with a failing function, for the banner at the top (nil: none failing).
    public var outage: String?

    public init(events: [Event], forwardIdToken: Bool, forwardAccessToken: Bool, forwardRefreshToken: Bool, editable: Bool,
                tenantNote: String? = nil, projectHref: String = "/console/blocking-functions", policy: String, formError: String? = nil,
                outage: String? = nil) {
        self.events = events
        self.forwardIdToken = forwardIdToken
        self.forwardAccessToken = forwardAccessToken
        self.forwardRefreshToken = forwardRefreshToken
        self.editable = editable
        self.tenantNote = tenantNote
        self.projectHref = projectHref
        self.policy = policy
        self.formError = formError
        self.outage = outage
    }
}
