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

    static func flag(_ name: String, short: Character? = nil, repeatable: Bool = false, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, repeatable: repeatable, help: help)
    }

    static func value(
        _ name: String, short: Character? = nil, _ valueName: String, repeatable: Bool = false, aliases: [String] = [],
        help: String
    ) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: valueName, repeatable: repeatable, help: help, aliases: aliases)
    }

    /// How it is written in help, e.g. `-q, --quiet` or `--prn N`.
    var synopsis: String {
        var text = short.map { "-\($0), " } ?? "    "
        text += "--\(name)"
        if let valueName { text += " \(valueName)" }
        return text
    }
}
