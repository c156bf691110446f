/// One option a command accepts: its long name, an optional short letter, and whether it takes a value.
struct OptionSpec: Sendable {
    /// The long name without dashes, e.g. `prn` for `--prn`.
    let name: String
    /// The short letter, e.g. `q` for `-q`.
    let short: Character?
    /// The placeholder shown in help for the value, or nil for a flag.
    let valueName: String?
    /// Whether it may be given more than once.
    let repeatable: Bool
    /// One line for `--help`.
    let help: String
    /// Other long names accepted for it (an older spelling), not shown in help.
    var aliases: [String] = []
    /// The value used when the option is absent, as help and the documents state it (`--help`
    /// appends `(default …)`); read from where the default is defined, never written again here.
    var defaultValue: String?

    static func flag(_ name: String, short: Character? = nil, repeatable: Bool = false, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, repeatable: repeatable, help: help)
    }

    static func value(
        _ name: String, short: Character? = nil, _ valueName: String, repeatable: Bool = false, aliases: [String] = [],
        help: String, default defaultValue: String? = nil
    ) -> OptionSpec {
        OptionSpec(
            name: name, short: short, valueName: valueName, repeatable: repeatable, help: help, aliases: aliases,
            defaultValue: defaultValue)
    }

    /// The line `--help` shows: the help, then the default when there is one.
    var helpLine: String {
        defaultValue.map { "\(help) (default \($0))" } ?? help
    }

    /// A duration as a number of seconds, as `--scan-timeout` takes it: `10`, `0.5`.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return milliseconds % 1000 == 0 ? String(milliseconds / 1000) : String(Double(milliseconds) / 1000)
    }

    /// A duration as a number of milliseconds, as `--object-delay` takes it.
    static func milliseconds(_ duration: Duration) -> String {
        String(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    /// How it is written in help, e.g. `-q, --quiet` or `--prn N`.
    var synopsis: String {
        var text = short.map { "-\($0), " } ?? "    "
        text += "--\(name)"
        if let valueName { text += " \(valueName)" }
        return text
    }
}
