import ArgumentParser
import Foundation
import HearthCore
import HearthServer
import HearthStore
import HearthWire

/// `hearth project sms` (issue 40): phone sign-in and its defences — shown (today's count against the budget, the
/// limits, app verification, the region policy, the gateway, the test numbers) and changed as the admin API's `PATCH
/// …/config` changes them (``AdminService/updateProjectSettings(_:by:in:)``: the same checks and the `config.update`
/// audit entry).
struct ProjectSms: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sms",
        abstract: "Show or change phone sign-in, SMS second factors, the SMS budget and limits, app verification, the region policy and test numbers.",
        discussion: """
            SMS cost money and draw abuse: the daily budget, the per-number and per-address limits, the region policy and \
            app verification (reCAPTCHA) are the brakes (docs/phone.md). A production project (not demo-*, the server \
            without --dev) refuses every send until a reCAPTCHA secret is set or app verification is turned off explicitly. \
            Example: hearth project sms set --phone-sign-in on --daily-budget 200 --allow-regions US,CA
            """,
        subcommands: [Show.self, Set.self, TestNumbers.self],
        defaultSubcommand: Show.self)

    /// The server's rule for a command run apart from it: `--dev` (here or in the settings) or a `demo-*` project
    /// needs no app verification.
    static func production(_ settings: Settings, dev: Bool) -> Bool {
        !settings.projectId.hasPrefix("demo-") && !(dev || settings[\.dev])
    }

    /// Everything `show` prints (and `set` / `test-numbers` after a change).
    static func describe(_ config: ProjectConfig, _ status: SmsStatus) -> String {
        func word(_ flag: Bool) -> String { flag ? "on" : "off" }
        var lines = [
            "project                  \(config.projectId)",
            "phone sign-in            \(word(status.phoneSignIn))",
            "SMS second factor        \(word(status.phoneSecondFactor))",
            "sent today               \(status.todayWords)",
            "daily budget             \(status.dailyBudget)" + (config.sms?.dailyBudget == nil ? " (default)" : ""),
            "per number per hour      \(status.perNumberPerHour)" + (config.sms?.perNumberPerHour == nil ? " (default)" : ""),
            "per address per hour     \(status.perAddressPerHour)" + (config.sms?.perAddressPerHour == nil ? " (default)" : ""),
            "app verification         \(status.appVerificationWords)",
            "region policy            \(status.regionPolicy)",
            "gateway                  \(status.gateway ?? "-")",
            "test numbers             \(config.testPhoneNumbers.count) of \(AdminProjectConfig.PhoneNumberConfig.maximumTestPhoneNumbers)",
        ]
        for (number, code) in config.testPhoneNumbers.sorted(by: { $0.key < $1.key }) { lines.append("  \(number)  \(code)") }
        for alert in status.alerts { lines.append("warning: \(alert)") }
        return lines.joined(separator: "\n")
    }

    /// Runs `changes` (given the stored settings) through the admin service and prints the outcome.
    static func change(_ storeOptions: StoreOptions, projectId: String?, dev: Bool,
                       _ changes: @escaping @Sendable (ProjectConfig) throws -> [ProjectSettingChange]) async throws -> String {
        try await ProjectHooks.withService(storeOptions, projectId: projectId, ProjectHooks.Policy(dev: dev)) { service, store, settings in
            let current = try await HearthCLI.requireProject(settings.projectId, in: store, settings: settings)
            let list = try changes(current)
            if !list.isEmpty {
                _ = try await HearthCLI.plainly {
                    try await service.updateProjectSettings(list, by: HearthCLI.principal, in: service.projectScope)
                }
            }
            return try await describe(service, store, settings, dev: dev)
        }
    }

    static func describe(_ service: AdminService, _ store: any HearthStore, _ settings: Settings, dev: Bool) async throws -> String {
        let config = try await HearthCLI.requireProject(settings.projectId, in: store, settings: settings)
        let production = production(settings, dev: dev)
        // The server's gateway is its own setting: a command knows only this machine's configuration file and
        // environment, so without sms.url there it cannot tell (the server may have been given --sms-url).
        let gateway: String = settings.smsSender.map { "\($0.summary) (this machine's sms.url)" }
            ?? (production ? "not in this machine's settings (sms.url; the server may have been given --sms-url)"
                           : "the dev sink, unless the server was given --sms-url")
        let status = try await service.smsStatus(in: service.projectScope, production: production, gateway: .some(gateway))
        return describe(config, status)
    }

    struct DevOption: ParsableArguments {
        @Flag(name: .customLong("dev"), help: "The server runs with --dev: no app verification needed, an http:// verify URL to a loopback host accepted.")
        var dev = false
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show phone sign-in, today's SMS count against the budget, the limits, app verification, the region policy and the test numbers.")
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var project: ProjectOption
        @OptionGroup var devOption: DevOption

        func run() async throws {
            let dev = devOption.dev
            print(try await ProjectHooks.withService(storeOptions, projectId: project.projectId, ProjectHooks.Policy(dev: dev)) { service, store, settings in
                try await ProjectSms.describe(service, store, settings, dev: dev)
            })
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change phone sign-in, SMS second factors, the budget and limits, app verification and the region policy.",
            discussion: """
                A number option takes 'default' to return to the default. The reCAPTCHA secret is read from a file (or - for \
                standard input), never from the command line, and is stored sealed. \
                Example: hearth project sms set --recaptcha-secret-file recaptcha.txt --daily-budget 500 --deny-regions KP,IR
                """)
        @OptionGroup var storeOptions: StoreOptions
        @OptionGroup var project: ProjectOption
        @Option(name: .customLong("phone-sign-in"), help: "Phone sign-up and sign-in (on/off).") var phoneSignIn: Project.Switch?
        @Option(name: .customLong("second-factor"), help: "SMS as a second factor, mfa.enabledProviders PHONE_SMS (on/off).") var secondFactor: Project.Switch?
        @Option(name: .customLong("daily-budget"), help: "SMS per UTC day, 0 stops sending (default 1000).") var dailyBudget: String?
        @Option(name: .customLong("per-number-per-hour"), help: "Codes sent to one number per hour (default 5).") var perNumberPerHour: String?
        @Option(name: .customLong("per-address-per-hour"), help: "Codes sent for one client address per hour (default 10).") var perAddressPerHour: String?
        @Option(name: .customLong("recaptcha-secret-file"), help: "A file holding the reCAPTCHA secret key (- reads standard input).")
        var recaptchaSecretFile: String?
        @Flag(name: .customLong("no-recaptcha-secret"), help: "Remove the stored reCAPTCHA secret.") var removeSecret = false
        @Option(name: .customLong("recaptcha-verify-url"), help: "The siteverify endpoint ('default': Google's).") var verifyUrl: String?
        @Option(name: .customLong("recaptcha-min-score"), help: "The lowest score accepted, 0 to 1 ('default': 0.5).") var minScore: String?
        @Flag(name: .customLong("no-app-verification"), help: "Send without app verification on a production project without a reCAPTCHA secret.")
        var noAppVerification = false
        @Flag(name: .customLong("app-verification"), help: "Undo --no-app-verification: without a secret, a production project refuses every send.")
        var appVerification = false
        @Option(name: .customLong("allow-regions"), help: "Send only to these regions (two-letter codes, comma-separated): allowlistOnly.")
        var allowRegions: String?
        @Option(name: .customLong("deny-regions"), help: "Send to every region except these (comma-separated): allowByDefault.")
        var denyRegions: String?
        @Flag(name: .customLong("all-regions"), help: "Remove the region policy: every region.") var allRegions = false
        @OptionGroup var devOption: DevOption

        /// A number option: 'default' → nil; a whole number; anything else one clear line.
        static func number(_ text: String?, _ option: String) throws -> Int?? {
            guard let text else { return .none }
            if text.lowercased() == "default" { return .some(nil) }
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError("\(option) takes a whole number or 'default' ('\(String(text.prefix(20)))' given)")
            }
            return .some(value)
        }

        static func regions(_ text: String) -> [String] {
            text.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
        }

        func validate() throws {
            if [allowRegions != nil, denyRegions != nil, allRegions].filter({ $0 }).count > 1 {
                throw ValidationError("give one of --allow-regions, --deny-regions and --all-regions")
            }
            if noAppVerification && appVerification { throw ValidationError("give --no-app-verification or --app-verification, not both") }
            if recaptchaSecretFile != nil && removeSecret { throw ValidationError("give --recaptcha-secret-file or --no-recaptcha-secret, not both") }
            _ = try Self.number(dailyBudget, "--daily-budget")
            _ = try Self.number(perNumberPerHour, "--per-number-per-hour")
            _ = try Self.number(perAddressPerHour, "--per-address-per-hour")
            if let minScore, minScore.lowercased() != "default", Double(minScore) == nil {
                throw ValidationError("--recaptcha-min-score takes a number between 0 and 1 or 'default'")
            }
        }

        /// The secret from its file (or standard input), trimmed: one clear line when it cannot be read or is empty.
        func secret() throws -> String? {
            guard let path = recaptchaSecretFile else { return nil }
            let data: Data
            if path == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                guard let read = FileManager.default.contents(atPath: path) else {
                    throw ValidationError("cannot read \(path): give a file holding the reCAPTCHA secret key")
                }
                data = read
            }
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { throw ValidationError("\(path) is empty: it must hold the reCAPTCHA secret key") }
            return text
        }

        func run() async throws {
            var changes: [ProjectSettingChange] = []
            if let phoneSignIn { changes.append(.phoneSignIn(phoneSignIn.isOn)) }
            if case .some(let value) = try Self.number(dailyBudget, "--daily-budget") { changes.append(.smsDailyBudget(value)) }
            if case .some(let value) = try Self.number(perNumberPerHour, "--per-number-per-hour") { changes.append(.smsPerNumberPerHour(value)) }
            if case .some(let value) = try Self.number(perAddressPerHour, "--per-address-per-hour") { changes.append(.smsPerAddressPerHour(value)) }
            if let secret = try secret() { changes.append(.smsRecaptchaSecretKey(secret)) }
            if removeSecret { changes.append(.smsRecaptchaSecretKey(nil)) }
            if let verifyUrl { changes.append(.smsRecaptchaVerifyUrl(verifyUrl.lowercased() == "default" ? nil : verifyUrl)) }
            if let minScore { changes.append(.smsRecaptchaMinScore(minScore.lowercased() == "default" ? nil : Double(minScore))) }
            if noAppVerification { changes.append(.smsAppVerificationDisabled(true)) }
            if appVerification { changes.append(.smsAppVerificationDisabled(nil)) }
            if let allowRegions { changes.append(.smsRegionConfig(SmsRegionConfig(allowlistOnly: .init(allowedRegions: Self.regions(allowRegions))))) }
            if let denyRegions { changes.append(.smsRegionConfig(SmsRegionConfig(allowByDefault: .init(disallowedRegions: Self.regions(denyRegions))))) }
            if allRegions { changes.append(.smsRegionConfig(nil)) }
            // Here rather than in validate(): a misspelt option is then reported as unknown, not as "nothing to set".
            guard !changes.isEmpty || secondFactor != nil else {
                throw ValidationError("nothing to set: pass --phone-sign-in, --second-factor, --daily-budget, --per-number-per-hour, --per-address-per-hour, --recaptcha-secret-file, --no-recaptcha-secret, --recaptcha-verify-url, --recaptcha-min-score, --no-app-verification, --app-verification, --allow-regions, --deny-regions or --all-regions (hearth project sms test-numbers changes test numbers)")
            }
            let fixed = changes
            let second = secondFactor?.isOn
            print(try await ProjectSms.change(storeOptions, projectId: project.projectId, dev: devOption.dev) { current in
                fixed + (second.map { ProjectSettingChange.phoneSecondFactor($0, current: current) } ?? [])
            })
        }
    }

    /// `hearth project sms test-numbers add|remove`.
    struct TestNumbers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test-numbers",
            abstract: "Add or remove test phone numbers: fixed codes, never sent, never counted (at most 10).",
            subcommands: [Add.self, Remove.self])

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Add a test number (E.164) with its fixed 6-digit code, or change its code.",
                discussion: "Example: hearth project sms test-numbers add +15555550100 123456")
            @OptionGroup var storeOptions: StoreOptions
            @OptionGroup var project: ProjectOption
            @Argument(help: "The number, E.164 (+15555550100; spaces and dashes are ignored).") var number: String
            @Argument(help: "Its fixed code: 6 digits.") var code: String

            func validate() throws {
                do throws(PhoneNumberError) {
                    _ = try PhoneNumber.parse(number)
                } catch {
                    throw ValidationError("\(String(number.withoutControlCharacters.prefix(40))) is not a phone number: \(error.detail)")
                }
                guard code.utf8.count == 6, code.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                    throw ValidationError("the code must be 6 digits (0-9), such as 123456")
                }
            }

            func run() async throws {
                let number = try PhoneNumber.parse(number)
                let code = code
                print(try await ProjectSms.change(storeOptions, projectId: project.projectId, dev: false) { current in
                    var numbers = current.testPhoneNumbers
                    numbers[number] = code
                    return [.testPhoneNumbers(numbers)]
                })
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove test numbers.")
            @OptionGroup var storeOptions: StoreOptions
            @OptionGroup var project: ProjectOption
            @Argument(help: "The numbers to remove (E.164), or all.") var numbers: [String] = []

            func validate() throws {
                guard !numbers.isEmpty else { throw ValidationError("name the test numbers to remove (or all)") }
            }

            func run() async throws {
                let removeAll = numbers.contains { $0.lowercased() == "all" }
                let named = numbers.filter { $0.lowercased() != "all" }.map { (try? PhoneNumber.parse($0)) ?? $0 }
                print(try await ProjectSms.change(storeOptions, projectId: project.projectId, dev: false) { current in
                    var numbers = current.testPhoneNumbers
                    if removeAll { numbers = [:] }
                    for number in named {
                        guard numbers.removeValue(forKey: number) != nil || removeAll else {
                            throw CLIError("\(String(number.withoutControlCharacters.prefix(40))) is not a test number (hearth project sms shows them)")
                        }
                    }
                    return [.testPhoneNumbers(numbers)]
                })
            }
        }
    }
}
