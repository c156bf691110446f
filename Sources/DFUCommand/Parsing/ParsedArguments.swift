/// A command line split into options and positional arguments, checked against the command's
/// ``OptionSpec``s. Values are still strings; commands turn them into typed values.
struct ParsedArguments: Sendable {
    /// The command these arguments are for (used in messages).
    let command: String
    /// Every value given for each option, in order.
    private(set) var values: [String: [String]] = [:]
    /// How many times each flag was given.
    private(set) var flagCounts: [String: Int] = [:]
    /// The positional arguments in order.
    private(set) var positionals: [String] = []

    /// Splits `arguments` according to `specs`. `--` ends the options.
    init(_ arguments: [String], specs: [OptionSpec], command: String) throws(UsageError) {
        self.command = command
        var index = 0
        var optionsEnded = false
        func spec(named name: String) throws(UsageError) -> OptionSpec {
            guard let found = specs.first(where: { $0.name == name || $0.aliases.contains(name) }) else {
                throw UsageError(Self.unknown("--\(name)", specs: specs), command: command)
            }
            return found
        }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name: String
                var inline: String?
                if let equals = body.firstIndex(of: "=") {
                    name = String(body[..<equals])
                    inline = String(body[body.index(after: equals)...])
                } else {
                    name = String(body)
                }
                let option = try spec(named: name)
                if option.valueName == nil {
                    if inline != nil {
                        throw UsageError("option --\(name) takes no value", command: command)
                    }
                    try record(flag: option)
                } else {
                    let value: String
                    if let inline {
                        value = inline
                    } else if index < arguments.count {
                        value = arguments[index]
                        index += 1
                    } else {
                        throw UsageError("option --\(name) needs a value (\(option.valueName ?? "VALUE"))", command: command)
                    }
                    try record(value: value, for: option)
                }
                continue
            }
            // Short options: `-v`, `-vv`, `-qv`, `-d VALUE` or `-dVALUE`.
            var letters = Substring(argument.dropFirst())
            while let letter = letters.first {
                letters = letters.dropFirst()
                guard let option = specs.first(where: { $0.short == letter }) else {
                    throw UsageError(Self.unknown("-\(letter)", specs: specs), command: command)
                }
                if option.valueName == nil {
                    try record(flag: option)
                    continue
                }
                let value: String
                if !letters.isEmpty {
                    value = String(letters)
                    letters = ""
                } else if index < arguments.count {
                    value = arguments[index]
                    index += 1
                } else {
                    throw UsageError("option -\(letter) needs a value (\(option.valueName ?? "VALUE"))", command: command)
                }
                try record(value: value, for: option)
            }
        }
    }

    private mutating func record(flag option: OptionSpec) throws(UsageError) {
        let count = flagCounts[option.name, default: 0]
        if count > 0 && !option.repeatable {
            throw UsageError("option --\(option.name) is given twice", command: command)
        }
        flagCounts[option.name] = count + 1
    }

    private mutating func record(value: String, for option: OptionSpec) throws(UsageError) {
        if values[option.name] != nil && !option.repeatable {
            throw UsageError("option --\(option.name) is given twice", command: command)
        }
        values[option.name, default: []].append(value)
    }

    private static func unknown(_ written: String, specs: [OptionSpec]) -> String {
        let name = written.drop { $0 == "-" }
        let close = specs.map(\.name).filter { candidate in
            candidate.hasPrefix(name) || name.hasPrefix(candidate)
                || EditDistance.between(Substring(candidate), name) <= 2
        }
        if let best = close.first { return "unknown option \(written); did you mean --\(best)?" }
        return "unknown option \(written)"
    }

    /// Whether the flag was given.
    func flag(_ name: String) -> Bool { flagCounts[name, default: 0] > 0 }

    /// Whether the option (flag or value) was given at all.
    func isGiven(_ name: String) -> Bool { flag(name) || values[name] != nil }

    /// How many times the flag was given (for `-vv`).
    func count(_ name: String) -> Int { flagCounts[name, default: 0] }

    /// The value of a non-repeatable option, or nil.
    func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable option.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// An integer option within `range`, or nil when absent.
    func integer<T: FixedWidthInteger>(_ name: String, in range: ClosedRange<T>) throws(UsageError) -> T? {
        guard let text = value(name) else { return nil }
        guard let number = T(text), range.contains(number) else {
            throw UsageError(
                "option --\(name): '\(text)' is not a whole number from \(range.lowerBound) to \(range.upperBound)",
                command: command)
        }
        return number
    }

    /// Exactly `count` positional arguments, named in the message when missing.
    func positionals(named names: [String]) throws(UsageError) -> [String] {
        if positionals.count < names.count {
            throw UsageError("missing \(names[positionals.count])", command: command)
        }
        if positionals.count > names.count {
            throw UsageError("unexpected argument '\(positionals[names.count])'", command: command)
        }
        return positionals
    }
}
