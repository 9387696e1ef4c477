import ArgumentParser
import Configuration
import Foundation

/// Where every setting of the command line comes from, through swift-configuration: its flag,
/// else its environment variable (`NOTICEBOARD_` and the setting's words, as
/// `NOTICEBOARD_POST_RATE_PER_MINUTE` for `postRatePerMinute`; lists comma-separated), else the
/// default its reader names. A value that is set but cannot be read is an error naming it.
struct SettingsSource {
    private let reader: ConfigReader

    /// `flags`: each setting's name and what its flag gave, `nil` when it was not given.
    init(flags: [String: ConfigContent?], environment: [String: String] = ProcessInfo.processInfo.environment) {
        var given: [AbsoluteConfigKey: ConfigValue] = [:]
        for case let (name, content?) in flags { given[AbsoluteConfigKey(Self.key(name))] = ConfigValue(content, isSecret: false) }
        reader = ConfigReader(providers: [
            InMemoryProvider(name: "flags", values: given),
            EnvironmentVariablesProvider(environmentVariables: environment.filter { !$0.value.isEmpty }, arraySeparator: ","),
        ])
    }

    /// The setting's key; `logLevel` is read from `LOG_LEVEL`, the name swift-log's users know.
    static func key(_ name: String) -> ConfigKey { name == "logLevel" ? ["log", "level"] : ["noticeboard", name] }

    /// The environment variable a setting is read from, for messages.
    static func variable(_ name: String) -> String {
        key(name).components.map { component in
            component.reduce(into: "") { text, character in
                if character.isUppercase, let last = text.last, last.isLowercase { text.append("_") }
                text.append(character)
            }.uppercased()
        }.joined(separator: "_")
    }

    func string(_ name: String) -> String? { reader.string(forKey: Self.key(name)) }

    func string(_ name: String, default fallback: String) -> String { string(name) ?? fallback }

    func list(_ name: String) -> [String] {
        (reader.stringArray(forKey: Self.key(name)) ?? []).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func integer(_ name: String, default fallback: Int) throws -> Int {
        if let value = reader.int(forKey: Self.key(name)) { return value }
        guard let text = string(name) else { return fallback }
        throw ValidationError("\(Self.variable(name)) must be an integer, not \(text)")
    }

    /// Seconds, fractions allowed, between 0.1 s and a day.
    func seconds(_ name: String, default fallback: Duration) throws -> Duration {
        guard let value = reader.double(forKey: Self.key(name)) else {
            guard let text = string(name) else { return fallback }
            throw ValidationError("\(Self.variable(name)) must be a number of seconds, not \(text)")
        }
        guard value >= 0.1, value <= 86_400 else { throw ValidationError("\(Self.variable(name)) must be 0.1 to 86400 seconds") }
        return .milliseconds(Int64((value * 1000).rounded()))
    }
}

extension Optional where Wrapped == String {
    var setting: ConfigContent? { map(ConfigContent.string) }
}

extension Optional where Wrapped == Int {
    var setting: ConfigContent? { map(ConfigContent.int) }
}

extension Optional where Wrapped == Double {
    var setting: ConfigContent? { map(ConfigContent.double) }
}

extension Array where Element == String {
    var setting: ConfigContent? { isEmpty ? nil : .stringArray(self) }
}
