import ArgumentParser
import Configuration
import Foundation
import HearthWire
import Synchronization

/// One setting, declared once in ``Settings/Table``: its key, how the command line gives it, its default, its help and
/// how its value is read and checked. Everything else comes from that declaration: the `serve` option (name and help,
/// ``Settings/Key/name`` and ``Settings/Key/help``), the `HEARTH_*` environment variable, the configuration file key,
/// the lists of known keys and variables (typo suggestions), the typed read through swift-configuration's
/// `ConfigReader` with its message on a bad value, and the value itself: `settings[\.port]`.
struct Setting<Value: Sendable>: DeclaredSetting, Sendable {
    /// What every setting has, whatever its type (its identity in dictionaries, its forms, its help).
    let key: Settings.Key

    /// A setting with a default, given as a value of the setting and read like any other (so it is checked too).
    /// `documented`: the default as help and docs say it, when not the text itself.
    init(_ name: String, _ form: Settings.Key.Form = .none, default defaultText: String, documented: String? = nil, secret: Bool = false,
         requires requirement: Settings.Key.Requirement? = nil, help summary: String, discussion: String = "", valueName: String? = nil,
         _ type: SettingType<Value>) {
        key = Settings.Key(rawValue: name, form: form, defaultText: defaultText, documentedDefault: documented ?? defaultText,
                           isSecret: secret, summary: summary, discussion: discussion, valueName: valueName, requirement: requirement) { sources, key in
            guard let value = try type.read(sources, key) else { preconditionFailure("the default of \(name) does not read as a value") }
            return value
        }
    }

    /// A setting without a default: nil unless given. `documented`: what applies then, as help and docs say it.
    init<Wrapped>(_ name: String, _ form: Settings.Key.Form = .none, documented: String, secret: Bool = false,
                  requires requirement: Settings.Key.Requirement? = nil, help summary: String, discussion: String = "",
                  valueName: String? = nil, _ type: SettingType<Wrapped>) where Value == Wrapped? {
        key = Settings.Key(rawValue: name, form: form, defaultText: nil, documentedDefault: documented, isSecret: secret,
                           summary: summary, discussion: discussion, valueName: valueName, requirement: requirement) { sources, key in
            let value: Wrapped? = try type.read(sources, key)
            return value as any Sendable
        }
    }
}

/// A ``Setting`` whatever its value type: how ``Settings/Key/all`` finds the declarations.
protocol DeclaredSetting {
    var key: Settings.Key { get }
}

extension Settings {
    /// A setting's identity and description, whatever its type: a key of ``Settings/load(options:configFile:environment:)``'s
    /// `options`, a row of the table.
    struct Key: Hashable, Sendable, CustomStringConvertible {
        /// How the command line gives a setting.
        enum Form: Sendable, Equatable {
            /// Environment and configuration file only (a secret, or a setting few need).
            case none
            /// `--name value`.
            case option(String)
            /// `--name value`, repeated for several (comma-separated in the environment, a JSON array in the file).
            case list(String)
            /// `--name` alone: true.
            case flag(String)
            /// `--no-name` alone: false.
            case negatedFlag(String)

            var option: String? {
                switch self {
                case .none: nil
                case .option(let name), .list(let name), .flag(let name), .negatedFlag(let name): name
                }
            }
        }

        /// Another setting this one needs (`database.tls` needs `database.url`), and what that one is, for the message.
        struct Requirement: Sendable {
            var key: String
            var purpose: String
        }

        /// The key in the file (`project.id`, nested `{"project":{"id":…}}` also works); the environment variable is
        /// `HEARTH_` and the key in capitals, `.` as `_`.
        let rawValue: String
        let form: Form
        /// The default as a value of the setting (the reader's last source); nil: none.
        let defaultText: String?
        /// The default as help and docs say it.
        let documentedDefault: String
        /// Never repeated in a message or an access log.
        let isSecret: Bool
        /// The help's first sentence; ``help`` adds the default, the variable and the key.
        let summary: String
        let discussion: String
        let valueName: String?
        let requirement: Requirement?
        /// Reads and checks the value (its default when no source gives it) through the sources' reader.
        let resolve: @Sendable (Sources, Key) throws -> any Sendable

        static func == (lhs: Key, rhs: Key) -> Bool { lhs.rawValue == rhs.rawValue }
        func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
        var description: String { rawValue }

        /// Every declared setting, in ``Settings/Table``'s order.
        static let all: [Key] = Mirror(reflecting: Settings.table).children.compactMap { ($0.value as? any DeclaredSetting)?.key }

        /// The declared setting with this file key.
        init?(rawValue: String) {
            guard let key = Self.all.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = key
        }

        fileprivate init(rawValue: String, form: Form, defaultText: String?, documentedDefault: String, isSecret: Bool, summary: String,
                         discussion: String, valueName: String?, requirement: Requirement?,
                         resolve: @escaping @Sendable (Sources, Key) throws -> any Sendable) {
            self.rawValue = rawValue
            self.form = form
            self.defaultText = defaultText
            self.documentedDefault = documentedDefault
            self.isSecret = isSecret
            self.summary = summary
            self.discussion = discussion
            self.valueName = valueName
            self.requirement = requirement
            self.resolve = resolve
        }

        /// The option's name for `@Option(name:)` / `@Flag(name:)`.
        var name: NameSpecification { .customLong(form.option ?? rawValue) }
        /// The option's help: the summary, then the default, the environment variable and the file key.
        var help: ArgumentHelp {
            let warning = isSecret ? "Prefer the environment or the config file: a command line is visible to other users of the machine." : ""
            let more = [discussion, warning].filter { !$0.isEmpty }.joined(separator: " ")
            return ArgumentHelp(described, discussion: more.isEmpty ? nil : more, valueName: valueName)
        }
        /// The summary with the default, the environment variable and the file key: how `serve --help` describes the
        /// setting (its option's help, or the list of settings without one).
        var described: String {
            "\(summary.hasSuffix(".") ? String(summary.dropLast()) : summary) (\(forms))"
        }
        /// `default 9099, env HEARTH_PORT, config key port`.
        var forms: String { "default \(documentedDefault), env \(environmentName), config key \(rawValue)" }
        var configKey: ConfigKey { ConfigKey(rawValue) }
        var environmentName: String { "HEARTH_" + rawValue.uppercased().replacingOccurrences(of: ".", with: "_") }
        /// How messages name the option (settings without one are never given on the command line).
        var optionName: String { form.option.map { "--\($0)" } ?? rawValue }

        /// The declared setting whose option a `serve` property (`_publicURL`, `rateLimitSignUpPerAddress`) is: its
        /// name is the option's, case and dashes aside (ArgumentParser's own rule for a property's option).
        static func forProperty(_ label: String) -> Key? {
            func plain(_ text: String) -> String { text.lowercased().filter { $0 != "-" && $0 != "_" } }
            return all.first { $0.form.option.map(plain) == plain(label) }
        }

        /// A value the command line gave (an option's text, a repeated option's list, a flag's presence) as the reader's
        /// first source holds it.
        func commandLineValue(_ value: Any) -> SettingValue {
            if case .negatedFlag = form { return .bool(false) }
            return SettingValue(value)
        }
    }

    /// The declarations (one ``Setting`` each, ``Settings/Table``), read by key path: `settings[\.port]`.
    static let table = Table()
}

/// How a setting's value comes out of the reader: the type it is read as (the reader converts, see
/// ``SettingsProvider``), then the declaration's check, which says what was expected.
struct SettingType<Value: Sendable>: Sendable {
    /// The value; nil when no source gives it (not even a default). Throws ``SettingsError`` on a bad value.
    let read: @Sendable (Settings.Sources, Settings.Key) throws -> Value?

    /// Reads the value as `Raw`; `convert` keeps it or refuses it (nil), and the message is "<where> <expectation>, got
    /// <the value as written>" (without the value for a secret).
    static func reading<Raw: ConfigReadable>(_ raw: Raw.Type, _ expectation: String, _ convert: @escaping @Sendable (Raw) -> Value?) -> Self {
        SettingType { sources, key in
            guard let given = sources.read(key, as: Raw.self) else { return nil }
            guard let value = given.value.flatMap(convert) else { throw sources.problem(key, given, expectation) }
            return value
        }
    }

    /// Reads the value as `Raw` (refused with `expectation` when it is not one); `check` turns it into the setting's
    /// value or throws its own message, given the place the value came from (`--smtp-url`, `HEARTH_SMTP_URL`, …).
    static func checking<Raw: ConfigReadable>(_ raw: Raw.Type, _ expectation: String,
                                              _ check: @escaping @Sendable (Raw, _ place: String) throws -> Value) -> Self {
        SettingType { sources, key in
            guard let given = sources.read(key, as: Raw.self) else { return nil }
            guard let value = given.value else { throw sources.problem(key, given, expectation) }
            return try check(value, sources.place(key, given.origin))
        }
    }
}

extension SettingType where Value == String {
    /// Text that is not blank.
    static var text: Self { reading(String.self, "must be a non-empty string") { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 } }
    /// One of `values` (any case), lower-cased.
    static func oneOf(_ values: [String], _ expectation: String) -> Self {
        reading(String.self, expectation) { values.contains($0.lowercased()) ? $0.lowercased() : nil }
    }
}

extension SettingType where Value == Int {
    static func integer(_ range: ClosedRange<Int>, _ expectation: String) -> Self { reading(Int.self, expectation) { range.contains($0) ? $0 : nil } }
}

extension SettingType where Value == Double {
    static func number(_ range: ClosedRange<Double>, _ expectation: String) -> Self {
        reading(Double.self, expectation) { $0.isFinite && range.contains($0) ? $0 : nil }
    }
}

extension SettingType where Value == Bool {
    /// `true`/`false` (JSON booleans, or the text true, false, 1, 0).
    static var flag: Self { reading(Bool.self, "must be true or false") { $0 } }
    /// `on`/`off`, or a boolean as ``flag`` reads it.
    static var onOff: Self {
        SettingType { sources, key in
            guard let given = sources.read(key, as: Bool.self) else { return nil }
            if let flag = given.value { return flag }
            if let text = sources.read(key, as: String.self)?.value, let flag = ["on": true, "off": false][text.lowercased()] { return flag }
            throw sources.problem(key, given, "must be on or off")
        }
    }
}

extension SettingType where Value: RawRepresentable<String> & CaseIterable {
    /// One of the type's cases by name (any case).
    static func choice(_ expectation: String) -> Self { reading(String.self, expectation) { Value(rawValue: $0.lowercased()) } }
}

/// A type `ConfigReader` reads directly (its typed accessors: `int(forKey:)`, `string(forKey:)`, …).
protocol ConfigReadable: Sendable {
    static func read(_ reader: ConfigReader, _ key: ConfigKey, isSecret: Bool) -> Self?
}

extension String: ConfigReadable {
    static func read(_ reader: ConfigReader, _ key: ConfigKey, isSecret: Bool) -> String? { reader.string(forKey: key, isSecret: isSecret) }
}

extension Int: ConfigReadable {
    static func read(_ reader: ConfigReader, _ key: ConfigKey, isSecret: Bool) -> Int? { reader.int(forKey: key, isSecret: isSecret) }
}

extension Double: ConfigReadable {
    static func read(_ reader: ConfigReader, _ key: ConfigKey, isSecret: Bool) -> Double? { reader.double(forKey: key, isSecret: isSecret) }
}

extension Bool: ConfigReadable {
    static func read(_ reader: ConfigReader, _ key: ConfigKey, isSecret: Bool) -> Bool? { reader.bool(forKey: key, isSecret: isSecret) }
}

extension Array: ConfigReadable where Element == String {
    static func read(_ reader: ConfigReader, _ key: ConfigKey, isSecret: Bool) -> [String]? {
        reader.stringArray(forKey: key, isSecret: isSecret)
    }
}

/// A value as its source wrote it: text on the command line and in the environment, JSON in the file.
enum SettingValue: Sendable, Equatable {
    case text(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case list([String])
    /// Something no setting takes (an object, a list that is not all strings), as a message shows it.
    case other(String)

    /// A command-line value (text, a repeated option's list, a flag).
    init(_ value: Any) {
        switch value {
        case let text as String: self = .text(text)
        case let list as [String]: self = .list(list)
        case let flag as Bool: self = .bool(flag)
        case let number as Int: self = .int(number)
        case let number as Double: self = .double(number)
        default: self = .other("\(value)")
        }
    }

    /// A JSON value: whole numbers as `int`, lists of strings as `list`, null as the text "null".
    init(json value: JSONValue) {
        switch value {
        case .null: self = .text("null")
        case .bool(let flag): self = .bool(flag)
        case .number(let number): self = number.rounded() == number && abs(number) < 1e15 ? .int(Int(number)) : .double(number)
        case .string(let text): self = .text(text)
        case .array(let items):
            let strings = items.compactMap { if case .string(let text) = $0 { text } else { nil } }
            self = strings.count == items.count ? .list(strings) : .other("a list with \(items.count) item(s) that are not all strings")
        case .object: self = .other("an object")
        }
    }

    /// The value in a message: text quoted, numbers and booleans as written.
    var shown: String {
        switch self {
        case .text(let text): "\"\(text)\""
        case .int(let number): "\(number)"
        case .double(let number): "\(number)"
        case .bool(let flag): flag ? "true" : "false"
        case .list(let list): "a list of \(list.count)"
        case .other(let description): description
        }
    }

    /// The value as the reader asks for it, nil when it is not one: text from text or a number; whole numbers from
    /// JSON numbers or their text; numbers from JSON numbers or their text; booleans from JSON booleans or the text
    /// true, false, 1 or 0; lists from JSON arrays of strings or comma-separated text.
    func content(_ type: ConfigType) -> ConfigContent? {
        switch (type, self) {
        case (.string, .text(let text)): .string(text)
        case (.string, .int(let number)): .string("\(number)")
        case (.string, .double(let number)): .string("\(number)")
        case (.int, .int(let number)): .int(number)
        case (.int, .text(let text)): Int(text.trimmingCharacters(in: .whitespaces)).map { .int($0) }
        case (.double, .double(let number)): .double(number)
        case (.double, .int(let number)): .double(Double(number))
        case (.double, .text(let text)): Double(text.trimmingCharacters(in: .whitespaces)).map { .double($0) }
        case (.bool, .bool(let flag)): .bool(flag)
        case (.bool, .text(let text)): ["true": true, "1": true, "false": false, "0": false][text.lowercased()].map { .bool($0) }
        case (.stringArray, .list(let list)): .stringArray(list)
        case (.stringArray, .text(let text)): .stringArray(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        default: nil
        }
    }
}

/// One source of settings (the command line, the environment, the file, the defaults) as a swift-configuration
/// provider: its values as written, converted to the type the reader asks for (``SettingValue/content(_:)``; the
/// library's own providers are exact about types, and its environment provider reads `yes` as true, which Hearth never
/// accepted). A value that does not convert is an error, which the reader reports to its access reporter and
/// ``Settings/Sources`` turns into a message naming the source.
struct SettingsProvider: ConfigProvider, ConfigSnapshot {
    struct NotConvertible: Error {}

    let providerName: String
    let values: [AbsoluteConfigKey: SettingValue]

    init(_ name: String, _ values: [Settings.Key: SettingValue]) {
        providerName = name
        self.values = Dictionary(uniqueKeysWithValues: values.map { (AbsoluteConfigKey($0.key.configKey), $0.value) })
    }

    /// The value as written, for a message.
    func written(_ key: Settings.Key) -> SettingValue? { values[AbsoluteConfigKey(key.configKey)] }

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        guard let written = values[key] else { return LookupResult(encodedKey: key.description, value: nil) }
        guard let content = written.content(type) else { throw NotConvertible() }
        return LookupResult(encodedKey: key.description, value: ConfigValue(content, isSecret: false))
    }

    func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult { try value(forKey: key, type: type) }

    // The library is built with NonisolatedNonsendingByDefault: its handlers run on the caller's executor.
    nonisolated(nonsending) func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey, type: ConfigType,
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchValueFromValue(forKey: key, type: type, updatesHandler: updatesHandler)
    }

    func snapshot() -> any ConfigSnapshot { self }

    nonisolated(nonsending) func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchSnapshotFromSnapshot(updatesHandler: updatesHandler)
    }
}

extension Settings {
    /// The command line, the `HEARTH_*` environment, the configuration file and the declared defaults, in that order,
    /// as one swift-configuration `ConfigReader` (the first source with a value wins), and which source answered each
    /// read, so that a message names it.
    struct Sources {
        /// The sources in the reader's order.
        enum Origin: Int, Sendable {
            case option, environment, file, defaults
        }

        /// A value a source gives: converted (nil when it does not convert to the type read), where it came from, and as
        /// written.
        struct Given<Raw> {
            var value: Raw?
            var origin: Origin
            var written: SettingValue
        }

        let reader: ConfigReader
        let filePath: String
        private let providers: [SettingsProvider]
        private let answers = Answers()

        init(options: [Key: SettingValue], environment: [String: String], file: [Key: SettingValue], filePath: String) {
            self.filePath = filePath
            let variables = Dictionary(uniqueKeysWithValues: Key.all.compactMap { key in
                environment[key.environmentName].map { (key, SettingValue.text($0)) }
            })
            let defaults = Dictionary(uniqueKeysWithValues: Key.all.compactMap { key in key.defaultText.map { (key, SettingValue.text($0)) } })
            providers = [SettingsProvider("command line", options), SettingsProvider("environment", variables),
                         SettingsProvider("configuration file", file), SettingsProvider("defaults", defaults)]
            reader = ConfigReader(providers: providers, accessReporter: answers)
        }

        /// Where `key`'s value comes from, without reading it; nil: nowhere (no source, no default).
        func origin(of key: Key) -> Origin? {
            providers.firstIndex { $0.written(key) != nil }.flatMap(Origin.init(rawValue:))
        }

        /// Reads `key` as `Raw` through the reader; nil when no source gives it.
        func read<Raw: ConfigReadable>(_ key: Key, as type: Raw.Type) -> Given<Raw>? {
            let value = Raw.read(reader, key.configKey, isSecret: key.isSecret)
            guard let answer = answers.answer(AbsoluteConfigKey(key.configKey)), let origin = Origin(rawValue: answer.provider),
                  let written = providers[answer.provider].written(key)
            else { return nil }
            return Given(value: answer.converted ? value : nil, origin: origin, written: written)
        }

        /// How a message names the place a value came from.
        func place(_ key: Key, _ origin: Origin) -> String {
            switch origin {
            case .option: key.optionName
            case .environment: key.environmentName
            case .file: "\"\(key.rawValue)\" in \(filePath)"
            case .defaults: "the default \(key.rawValue)"
            }
        }

        /// "<where> <expectation>, got <the value as written>"; a secret's value is never repeated.
        func problem<Raw>(_ key: Key, _ given: Given<Raw>, _ expectation: String) -> SettingsError {
            SettingsError(description: "\(place(key, given.origin)) \(expectation)" + (key.isSecret ? "" : ", got \(given.written.shown)"))
        }
    }

    /// Which provider answered each read (the reader's access events): the first with a value, or the first that
    /// could not convert its value (the reader stops there and answers nil).
    final class Answers: AccessReporter, Sendable {
        struct Answer {
            var provider: Int
            var converted: Bool
        }

        private let answered = Mutex<[AbsoluteConfigKey: Answer]>([:])

        func report(_ event: AccessEvent) {
            let index = event.providerResults.firstIndex { result in
                switch result.result {
                case .success(let lookup): lookup.value != nil
                case .failure: true
                }
            }
            let answer = index.map { index in
                Answer(provider: index, converted: event.conversionError == nil && (try? event.providerResults[index].result.get()) != nil)
            }
            answered.withLock { $0[event.metadata.key] = answer }
        }

        func answer(_ key: AbsoluteConfigKey) -> Answer? { answered.withLock { $0[key] } }
    }
}

// A setting's `serve` option: its name and help from the declaration; the value is the option's text (or the list, or
// the flag's presence), which the settings' reader reads and checks like the environment's and the file's.

extension Option {
    init<Declared>(_ setting: KeyPath<Settings.Table, Setting<Declared>>) where Value == String? {
        let key = Settings.table[keyPath: setting].key
        self.init(name: key.name, help: key.help)
    }

    init<Declared>(wrappedValue: [String], _ setting: KeyPath<Settings.Table, Setting<Declared>>) where Value == [String] {
        let key = Settings.table[keyPath: setting].key
        self.init(wrappedValue: wrappedValue, name: key.name, help: key.help)
    }
}

extension Flag where Value == Bool {
    init(wrappedValue: Bool, _ setting: KeyPath<Settings.Table, Setting<Bool>>) {
        let key = Settings.table[keyPath: setting].key
        self.init(wrappedValue: wrappedValue, name: key.name, help: key.help)
    }
}
