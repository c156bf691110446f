/// Integers written on nrfutil's command line, read as nrfutil 6.1.7 reads them
/// (`__main__.int_as_text_to_int`): `0x…` is hexadecimal, another leading `0` octal, anything
/// else decimal, each by Python's `int(text, base)` (surrounding blanks, one `_` between digits,
/// a sign, and in base 16 or 8 a repeated `0x`/`0o` prefix are all accepted).
public enum NrfutilInteger {
    /// The value of `text`, or nil when nrfutil would fail to read it.
    public static func parse(_ text: String) -> Int64? {
        if text.prefix(2).lowercased() == "0x" { return pythonInt(text.dropFirst(2), base: 16) }
        if text.hasPrefix("0") { return pythonInt(Substring(text), base: 8) }
        return pythonInt(Substring(text), base: 10)
    }

    /// Python's `int(text, base)` for bases 8, 10 and 16, nil where it raises or the value does
    /// not fit in 63 bits.
    public static func pythonInt(_ text: Substring, base: Int) -> Int64? {
        var body = text.trimmingPythonWhitespace()
        var negative = false
        if let sign = body.first, sign == "+" || sign == "-" {
            negative = sign == "-"
            body = body.dropFirst()
        }
        let prefix = base == 16 ? "0x" : base == 8 ? "0o" : nil
        var afterPrefix = false
        if let prefix, body.prefix(2).lowercased() == prefix {
            body = body.dropFirst(2)
            afterPrefix = true
        }
        guard !body.isEmpty, !body.hasSuffix("_"), afterPrefix || !body.hasPrefix("_"), !body.contains("__") else { return nil }
        var value: Int64 = 0
        for character in body where character != "_" {
            guard let digit = character.hexDigitValue, digit < base else { return nil }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: Int64(base))
            let (sum, overflow2) = shifted.addingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        // Python refuses a decimal with leading zeros ("007"), but not a lone run of zeros.
        if base == 10, body.first == "0", value != 0 { return nil }
        return negative ? -value : value
    }
}

extension Substring {
    fileprivate func trimmingPythonWhitespace() -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0B}" || $0 == "\u{0C}" }
        guard let start = firstIndex(where: { !blank($0) }), let end = lastIndex(where: { !blank($0) }) else { return "" }
        return self[start...end]
    }
}
