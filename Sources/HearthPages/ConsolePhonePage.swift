/// `/console/phone`: phone sign-in and SMS (issue 40) — the switch, the project's test numbers (fixed codes, never
/// sent), the region policy (Firebase's `smsRegionConfig`), the daily SMS budget with today's count, the per-number
/// and per-address limits, app verification (reCAPTCHA) and the SMS gateway in force. Banners at the top say when
/// sends stop: the budget used up today, a production project without app verification or without a gateway.
/// The reCAPTCHA secret is never on the page (shown as set / not set only).
public struct PhonePage: ConsolePage {
    public static let template = ConsoleTemplate.phone

    /// One test number and its fixed code.
    public struct TestNumber: Sendable {
        public var number: String
        public var code: String
        public init(number: String, code: String) {
            self.number = number
            self.code = code
        }
    }

    /// A line of the status table: a label, its value, and whether it is a problem (shown in the error colour).
    public struct Fact: Sendable {
        public var label: String
        public var value: String
        public var problem: Bool
        public init(label: String, value: String, problem: Bool = false) {
            self.label = label
            self.value = value
            self.problem = problem
        }
    }

    /// Whether phone sign-in is on.
    public var enabled: Bool
    /// Whether SMS is a second factor (`mfa.enabledProviders` holds `PHONE_SMS`).
    public var mfaEnabled: Bool
    /// Banners (each a sentence) saying why sends are refused or at risk now.
    public var alerts: [String]
    /// Today's sends, the budget, the limits, app verification, the gateway — in words.
    public var facts: [Fact]
    public var testNumbers: [TestNumber]
    /// The test-number form as typed after a refusal.
    public var typedNumber: String
    public var typedCode: String
    /// A refused test-number change, beside the add form.
    public var testNumberError: String?
    /// `allowByDefault` (true) or `allowlistOnly` (false).
    public var allowByDefault: Bool
    /// The regions of the policy, comma-separated (`disallowedRegions` or `allowedRegions`).
    public var regions: String
    /// A refused region policy, beside its form.
    public var regionError: String?
    /// The limits form's values as text (empty: the default, shown as the placeholder).
    public var dailyBudget: String
    public var perNumberPerHour: String
    public var perAddressPerHour: String
    public var defaultDailyBudget: String
    public var defaultPerNumberPerHour: String
    public var defaultPerAddressPerHour: String
    /// App verification turned off explicitly (`sms.appVerificationDisabled`).
    public var appVerificationDisabled: Bool
    /// Whether a reCAPTCHA secret is stored (never the secret).
    public var recaptchaSecretSet: Bool
    public var recaptchaVerifyUrl: String
    public var defaultVerifyUrl: String
    public var recaptchaMinScore: String
    public var defaultMinScore: String
    /// A refused limits / app-verification change, above its form.
    public var limitsError: String?

    public init(enabled: Bool, mfaEnabled: Bool = false, alerts: [String] = [], facts: [Fact] = [], testNumbers: [TestNumber] = [],
                typedNumber: String = "", typedCode: String = "", testNumberError: String? = nil,
                allowByDefault: Bool = true, regions: String = "", regionError: String? = nil,
                dailyBudget: String = "", perNumberPerHour: String = "", perAddressPerHour: String = "",
                defaultDailyBudget: String = "1000", defaultPerNumberPerHour: String = "5", defaultPerAddressPerHour: String = "10",
                appVerificationDisabled: Bool = false, recaptchaSecretSet: Bool = false, recaptchaVerifyUrl: String = "",
                defaultVerifyUrl: String = "https://www.google.com/recaptcha/api/siteverify", recaptchaMinScore: String = "",
                defaultMinScore: String = "0.5", limitsError: String? = nil) {
        self.enabled = enabled
        self.mfaEnabled = mfaEnabled
        self.alerts = alerts
        self.facts = facts
        self.testNumbers = testNumbers
        self.typedNumber = typedNumber
        self.typedCode = typedCode
        self.testNumberError = testNumberError
        self.allowByDefault = allowByDefault
        self.regions = regions
        self.regionError = regionError
        self.dailyBudget = dailyBudget
        self.perNumberPerHour = perNumberPerHour
        self.perAddressPerHour = perAddressPerHour
        self.defaultDailyBudget = defaultDailyBudget
        self.defaultPerNumberPerHour = defaultPerNumberPerHour
        self.defaultPerAddressPerHour = defaultPerAddressPerHour
        self.appVerificationDisabled = appVerificationDisabled
        self.recaptchaSecretSet = recaptchaSecretSet
        self.recaptchaVerifyUrl = recaptchaVerifyUrl
        self.defaultVerifyUrl = defaultVerifyUrl
        self.recaptchaMinScore = recaptchaMinScore
        self.defaultMinScore = defaultMinScore
        self.limitsError = limitsError
    }
}
