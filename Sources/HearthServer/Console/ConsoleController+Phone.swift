import Foundation
import HearthCore
import HearthPages
import HearthStore
import HearthWire
import Hummingbird

/// The console's Phone page (issue 40): phone sign-in and SMS as a second factor, the test numbers, the region
/// policy, the budget with today's count, the limits and app verification — each form saved through
/// ``AdminService/updateProjectSettings(_:by:in:)`` (the admin API's checks and its `config.update` audit entry). A
/// refused value comes back beside its form with what was typed. The settings are the project's.
extension ConsoleController {
    static let phonePath = "/console/phone"

    func registerPhone(on router: Router<HearthRequestContext>) {
        page(router, Self.phonePath, title: "Phone") { _, _ in try await phonePage() }
        router.post(RouterPath(Self.phonePath)) { request, _ in
            try await action(request) { session, form in
                let current = try await projectScope.config()
                var changes: [ProjectSettingChange] = [.phoneSignIn(form.flag("enabled"))]
                if form.flag("mfa") != current.isPhoneMFAEnabled { changes += ProjectSettingChange.phoneSecondFactor(form.flag("mfa"), current: current) }
                try await service.updateProjectSettings(changes, by: principal(session), in: projectScope)
                return redirect(Self.phonePath + "?ok=phone")
            }
        }
        router.post(RouterPath(Self.phonePath + "/test-numbers")) { request, _ in
            try await action(request) { session, form in
                var numbers = try await projectScope.config().testPhoneNumbers
                let typedNumber = form.text("number") ?? ""
                let typedCode = form.text("code") ?? ""
                if let remove = form["remove"] {
                    guard numbers.removeValue(forKey: remove) != nil else {
                        throw HearthAPIError(.invalidArgument, "\(String(remove.withoutControlCharacters.prefix(40))) is not a test number (reload the page)")
                    }
                } else {
                    do throws(PhoneNumberError) {
                        let number = try PhoneNumber.parse(typedNumber)
                        numbers[number] = typedCode
                    } catch {
                        return try await phoneFormAgain(session, testNumber: (typedNumber, typedCode),
                                                        refusal: "\(String(typedNumber.withoutControlCharacters.prefix(40))) is not a phone number: \(error.detail)")
                    }
                }
                do {
                    try await service.updateProjectSettings([.testPhoneNumbers(numbers)], by: principal(session), in: projectScope)
                } catch let error as HearthAPIError where error.httpStatus < 500 {
                    return try await phoneFormAgain(session, testNumber: (typedNumber, typedCode), refusal: Self.phoneSentence(error))
                }
                return redirect(Self.phonePath + "?ok=" + (form["remove"] == nil ? "test-number" : "test-number-removed") + "#test-numbers")
            }
        }
        router.post(RouterPath(Self.phonePath + "/regions")) { request, _ in
            try await action(request) { session, form in
                let typed = form.text("regions") ?? ""
                let regions = typed.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
                let policy: SmsRegionConfig? = switch form["mode"] {
                case "allowlistOnly": SmsRegionConfig(allowlistOnly: .init(allowedRegions: regions))
                default: regions.isEmpty ? nil : SmsRegionConfig(allowByDefault: .init(disallowedRegions: regions))
                }
                do {
                    try await service.updateProjectSettings([.smsRegionConfig(policy)], by: principal(session), in: projectScope)
                } catch let error as HearthAPIError where error.httpStatus < 500 {
                    return try await phoneFormAgain(session, regions: (form["mode"] != "allowlistOnly", typed), refusal: Self.phoneSentence(error))
                }
                return redirect(Self.phonePath + "?ok=sms-regions#regions")
            }
        }
        router.post(RouterPath(Self.phonePath + "/limits")) { request, _ in
            try await action(request) { session, form in
                do {
                    let changes = try Self.smsLimitChanges(form)
                    try await service.updateProjectSettings(changes, by: principal(session), in: projectScope)
                } catch let error as HearthAPIError where error.httpStatus < 500 {
                    return try await phoneFormAgain(session, limits: form, refusal: Self.phoneSentence(error))
                }
                return redirect(Self.phonePath + "?ok=sms-limits#limits")
            }
        }
    }

    /// The limits form as changes: each number (empty: the default), the switch, the verify URL and score, the
    /// secret only when one was typed (or removal asked for).
    static func smsLimitChanges(_ form: ConsoleForm) throws -> [ProjectSettingChange] {
        func number(_ field: String, _ label: String) throws -> Int? {
            let text = form.text(field) ?? ""
            if text.isEmpty { return nil }
            guard let value = Int(text) else { throw HearthAPIError(.invalidConfig, "\(label) must be a whole number ('\(text.prefix(20))' was sent)") }
            return value
        }
        var changes: [ProjectSettingChange] = [
            .smsDailyBudget(try number("dailyBudget", "the daily budget")),
            .smsPerNumberPerHour(try number("perNumberPerHour", "codes per number per hour")),
            .smsPerAddressPerHour(try number("perAddressPerHour", "codes per address per hour")),
            .smsAppVerificationDisabled(form.flag("appVerificationDisabled")),
            .smsRecaptchaVerifyUrl(form.text("verifyUrl")),
        ]
        let score = form.text("minScore") ?? ""
        if score.isEmpty {
            changes.append(.smsRecaptchaMinScore(nil))
        } else {
            guard let value = Double(score) else { throw HearthAPIError(.invalidConfig, "the lowest score must be a number between 0 and 1") }
            changes.append(.smsRecaptchaMinScore(value))
        }
        if let secret = form["recaptchaSecret"], !secret.isEmpty {
            changes.append(.smsRecaptchaSecretKey(secret.trimmingCharacters(in: .whitespacesAndNewlines)))
        } else if form.flag("removeSecret") {
            changes.append(.smsRecaptchaSecretKey(nil))
        }
        return changes
    }

    /// The page again after a refused form: what was typed, the refusal beside its form, HTTP 400.
    func phoneFormAgain(_ session: ConsoleSession, testNumber: (String, String)? = nil, regions: (Bool, String)? = nil, limits: ConsoleForm? = nil,
                        refusal: String) async throws -> Response {
        var page = try await phonePage()
        if let (number, code) = testNumber {
            page.typedNumber = number
            page.typedCode = code
            page.testNumberError = refusal
        }
        if let (allowByDefault, typed) = regions {
            page.allowByDefault = allowByDefault
            page.regions = typed
            page.regionError = refusal
        }
        if let limits {
            page.dailyBudget = limits.text("dailyBudget") ?? ""
            page.perNumberPerHour = limits.text("perNumberPerHour") ?? ""
            page.perAddressPerHour = limits.text("perAddressPerHour") ?? ""
            page.recaptchaVerifyUrl = limits.text("verifyUrl") ?? ""
            page.recaptchaMinScore = limits.text("minScore") ?? ""
            page.appVerificationDisabled = limits.flag("appVerificationDisabled")
            page.limitsError = refusal
        }
        return html(await render(page, title: "Phone", current: Self.phonePath, session: session), status: .badRequest)
    }

    /// A refusal as people read it: its detail without the wire code, capitalized unless it starts with a setting's
    /// path (`sms.dailyBudget must be …`).
    static func phoneSentence(_ error: HearthAPIError) -> String {
        let detail = error.detail ?? error.description
        if detail.prefix(while: { $0 != " " }).contains(".") { return detail }
        return detail.prefix(1).uppercased() + detail.dropFirst()
    }

    /// The page as stored.
    func phonePage() async throws -> PhonePage {
        let config = try await projectScope.config()
        let status = try await service.smsStatus(in: projectScope)
        let settings = config.sms ?? SmsSettings()
        var facts: [PhonePage.Fact] = [
            .init(label: "Phone sign-in", value: status.phoneSignIn ? "on" : "off"),
            .init(label: "SMS second factor", value: status.phoneSecondFactor ? "on" : "off"),
            .init(label: "SMS sent today", value: status.todayWords, problem: status.budgetUsedUp),
            .init(label: "Limits", value: "\(status.perNumberPerHour) codes per number and \(status.perAddressPerHour) per client address per hour; 5 wrong codes end a code, 10 wrong codes per number per hour"),
            .init(label: "App verification", value: status.appVerificationWords, problem: status.appVerification == .missing),
            .init(label: "Region policy", value: status.regionPolicy),
        ]
        if let gateway = status.gateway { facts.append(.init(label: "Gateway", value: gateway, problem: status.gatewayMissing)) }
        let region = config.smsRegionConfig
        return PhonePage(
            enabled: config.phoneSignInEnabled, mfaEnabled: config.isPhoneMFAEnabled, alerts: status.alerts, facts: facts,
            testNumbers: config.testPhoneNumbers.sorted { $0.key < $1.key }.map { PhonePage.TestNumber(number: $0.key, code: $0.value) },
            allowByDefault: region?.allowlistOnly == nil,
            regions: (region?.allowlistOnly?.allowedRegions ?? region?.allowByDefault?.disallowedRegions ?? []).joined(separator: ", "),
            dailyBudget: settings.dailyBudget.map(String.init) ?? "", perNumberPerHour: settings.perNumberPerHour.map(String.init) ?? "",
            perAddressPerHour: settings.perAddressPerHour.map(String.init) ?? "",
            defaultDailyBudget: String(SmsSettings.defaultDailyBudget), defaultPerNumberPerHour: String(SmsSettings.defaultPerNumberPerHour),
            defaultPerAddressPerHour: String(SmsSettings.defaultPerAddressPerHour),
            appVerificationDisabled: settings.appVerificationDisabled == true, recaptchaSecretSet: settings.hasRecaptchaSecret,
            recaptchaVerifyUrl: settings.recaptcha?.verifyUrl ?? "", defaultVerifyUrl: SmsSettings.defaultVerifyUrl,
            recaptchaMinScore: settings.recaptcha?.minScore.map { SmsStatus.score($0) } ?? "", defaultMinScore: SmsStatus.score(SmsSettings.defaultMinScore))
    }

    /// The overview's SMS banners (nil when the project's SMS are fine).
    func smsAlerts() async -> [String] {
        (try? await service.smsStatus(in: projectScope).alerts) ?? []
    }
}
