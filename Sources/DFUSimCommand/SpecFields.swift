/// The `key=value` fields of a comma-separated specification, parsed strictly.
struct SpecFields {
    /// The words without `=` (e.g. the device kind), in order.
    var words: [String] = []
    /// The `key=value` pairs; keys are lower case, `-` folded to `_`.
    var values: [String: String] = [:]

    /// Splits `text` at commas; a key given twice is an error.
    init(_ text: String) throws(StandInSpecError) {
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let field = String(part)
            guard !field.isEmpty else { throw StandInSpecError("empty field in '\(text)'") }
            if let equals = field.firstIndex(of: "=") {
                let key = field[..<equals].lowercased().replacingDashes
                guard !key.isEmpty else { throw StandInSpecError("field '\(field)' has no key") }
                guard values[key] == nil else { throw StandInSpecError("'\(key)' is given twice in '\(text)'") }
                values[key] = String(field[field.index(after: equals)...])
            } else {
                words.append(field)
            }
        }
    }

    /// Takes the value of `key` out (so that unknown keys can be reported at the end).
    mutating func take(_ key: String) -> String? { values.removeValue(forKey: key) }

    /// Takes every `PREFIX.NAME=value` pair out, as (NAME, value) sorted by NAME (`-` in NAME folded to `_`).
    mutating func take(prefix: String) -> [(name: String, value: String)] {
        let keys = values.keys.filter { $0.hasPrefix(prefix + ".") }.sorted()
        return keys.compactMap { key in
            values.removeValue(forKey: key).map { (String(key.dropFirst(prefix.count + 1)), $0) }
        }
    }

    /// Takes an integer (decimal or 0x hexadecimal).
    mutating func takeInteger(_ key: String) throws(StandInSpecError) -> Int? {
        guard let text = take(key) else { return nil }
        guard let value = Self.integer(text) else { throw StandInSpecError("\(key)=\(text) is not a number") }
        return value
    }

    /// Takes a 32-bit unsigned integer (a version, an ID).
    mutating func takeUInt32(_ key: String) throws(StandInSpecError) -> UInt32? {
        guard let value = try takeInteger(key) else { return nil }
        guard let narrow = UInt32(exactly: value) else { throw StandInSpecError("\(key)=\(value) is out of range") }
        return narrow
    }

    /// Takes a yes/no flag.
    mutating func takeFlag(_ key: String) throws(StandInSpecError) -> Bool? {
        guard let text = take(key) else { return nil }
        switch text.lowercased() {
        case "yes", "true", "1", "on": return true
        case "no", "false", "0", "off": return false
        default: throw StandInSpecError("\(key)=\(text) is not yes or no")
        }
    }

    /// Fails when keys are left that nobody took.
    func checkAllTaken(in what: String) throws(StandInSpecError) {
        if let key = values.keys.sorted().first {
            throw StandInSpecError("unknown key '\(key)' in \(what)")
        }
    }

    /// Parses `123`, `0x1F` (and a leading `-`).
    static func integer(_ text: String) -> Int? {
        var digits = Substring(text)
        var negative = false
        if digits.hasPrefix("-") {
            negative = true
            digits = digits.dropFirst()
        }
        let value: Int?
        // The sign goes with the digits, so that −2^63 (whose magnitude is no Int) is read too.
        let sign = negative ? "-" : ""
        if digits.lowercased().hasPrefix("0x") {
            value = Int(sign + digits.dropFirst(2), radix: 16)
        } else {
            value = Int(sign + digits, radix: 10)
        }
        return value
    }
}

extension StringProtocol {
    var replacingDashes: String { String(map { $0 == "-" ? "_" : $0 }) }
}
