import Foundation
import HearthCore
import HearthStore
import HearthWire

/// Phone sign-in and SMS in words (issue 40): what the console's Phone page and Overview banner and `hearth project
/// sms show` say — today's count against the budget, the limits, app verification, the gateway — and why sends stop.
public struct SmsStatus: Sendable {
    /// How app verification stands for the project.
    public enum AppVerification: Sendable, Equatable {
        /// A reCAPTCHA secret is set: every send needs a token the verify endpoint accepts.
        case recaptcha(verifyUrl: String, minScore: Double)
        /// Turned off explicitly (`sms.appVerificationDisabled`) on a production project without a secret.
        case disabledExplicitly
        /// A `demo-*` project or a `--dev` server: none needed.
        case notNeeded
        /// A production project with neither a secret nor the explicit switch: every send is refused.
        case missing
    }

    public var phoneSignIn: Bool
    public var phoneSecondFactor: Bool
    /// SMS counted against today's budget (UTC day); nil when the store could not say.
    public var sentToday: Int?
    public var dailyBudget: Int
    public var perNumberPerHour: Int
    public var perAddressPerHour: Int
    public var appVerification: AppVerification
    /// Where messages go (no secret), nil when the caller does not know (a command run apart from the server).
    public var gateway: String?
    /// Whether messages can leave the machine: false for a production server without `sms.url`.
    public var gatewayMissing: Bool
    public var testNumbers: Int
    public var regionPolicy: String

    /// The budget is used up for today: sends are refused until 00:00 UTC.
    public var budgetUsedUp: Bool { (sentToday ?? 0) >= dailyBudget }

    /// App verification in one line.
    public var appVerificationWords: String {
        switch appVerification {
        case .recaptcha(let url, let score): "reCAPTCHA (secret set; verified at \(url), lowest score \(Self.score(score)))"
        case .disabledExplicitly: "off (turned off explicitly: sends lean on the budget, the limits and the region policy)"
        case .notNeeded: "not needed (a demo project or a --dev server)"
        case .missing: "not configured: every send is refused (hearth project sms set --recaptcha-secret-file FILE, or --no-app-verification)"
        }
    }

    /// Today's count in words: "12 of 1000 today (UTC)".
    public var todayWords: String {
        guard let sentToday else { return "unknown (the store did not answer) of \(dailyBudget) today (UTC)" }
        return "\(min(sentToday, dailyBudget)) of \(dailyBudget) today (UTC)" + (budgetUsedUp ? ": used up, sends stop until 00:00 UTC" : "")
    }

    /// Why sends stop, or lean on fewer defences, now: a sentence each (the console's banners).
    public var alerts: [String] {
        var alerts: [String] = []
        if phoneSignIn || phoneSecondFactor {
            if budgetUsedUp {
                alerts.append("the daily SMS budget (\(dailyBudget)) is used up: every code is refused (QUOTA_EXCEEDED) until 00:00 UTC. Raise it on the Phone page or with hearth project sms set --daily-budget.")
            }
            if appVerification == .missing {
                alerts.append("app verification is not configured: this production project refuses every SMS. Set a reCAPTCHA secret, or turn app verification off explicitly.")
            }
            if appVerification == .disabledExplicitly {
                alerts.append("app verification is turned off: SMS are sent to any client that asks, with only the budget, the limits and the region policy as brakes.")
            }
            if gatewayMissing {
                alerts.append("this server has no SMS gateway (sms.url): production sends are refused. Set --sms-url to a Twilio account or a webhook (docs/phone.md).")
            }
        }
        return alerts
    }

    static func score(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}

extension AdminService {
    /// Phone sign-in and SMS of the project in words. `production`: a project not `demo-*` on a server without
    /// `--dev` (nil: this server's own rule); `gateway`: where messages go (nil: this server's messenger).
    public func smsStatus(in scope: Scope, production: Bool? = nil, gateway: String?? = nil) async throws -> SmsStatus {
        let config = try await scope.config()
        let settings = config.smsSettings
        let production = production ?? accounts.smsNeedsAppVerification(scope)
        let appVerification: SmsStatus.AppVerification =
            if settings.hasRecaptchaSecret { .recaptcha(verifyUrl: settings.effectiveVerifyUrl, minScore: settings.effectiveMinScore) }
            else if !production { .notNeeded }
            else if settings.appVerificationDisabled == true { .disabledExplicitly }
            else { .missing }
        let gatewayWords: String? = switch gateway {
        case .some(let given): given
        case .none: accounts.sms.deliverySummary
        }
        let gatewayMissing: Bool = switch gateway {
        case .some(let given): production && given == nil
        case .none: production && !accounts.sms.hasGateway
        }
        return SmsStatus(phoneSignIn: config.phoneSignInEnabled, phoneSecondFactor: config.isPhoneMFAEnabled,
                         sentToday: try? await accounts.smsSentToday(in: scope), dailyBudget: settings.effectiveDailyBudget,
                         perNumberPerHour: settings.effectivePerNumberPerHour, perAddressPerHour: settings.effectivePerAddressPerHour,
                         appVerification: appVerification, gateway: gatewayWords, gatewayMissing: gatewayMissing,
                         testNumbers: config.testPhoneNumbers.count, regionPolicy: Self.regionWords(config.smsRegionConfig))
    }

    /// The region policy in words.
    public static func regionWords(_ policy: SmsRegionConfig?) -> String {
        if let only = policy?.allowlistOnly {
            let regions = only.allowedRegions ?? []
            return regions.isEmpty ? "no region (allowlistOnly with none: every send is refused)" : "only \(regions.joined(separator: ", "))"
        }
        if let allow = policy?.allowByDefault, let regions = allow.disallowedRegions, !regions.isEmpty {
            return "every region except \(regions.joined(separator: ", "))"
        }
        return "every region"
    }
}
