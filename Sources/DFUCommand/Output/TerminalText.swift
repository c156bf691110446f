/// Text from outside `dfu` (advertised names, names inside a package, file names) made safe for a
/// terminal: control characters and the characters that reorder or hide text are shown as escapes
/// instead of acting on the terminal.
public enum TerminalText {
    /// `text` with every C0 and C1 control character, DEL, the line and paragraph separators and
    /// the bidirectional overrides and isolates written as `\xNN` or `\u{NNNN}`, and backslashes doubled
    /// so an escape cannot be faked.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\\" || needsEscape($0) }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                result += "\\\\"
            } else if needsEscape(scalar) {
                result += scalar.value < 0x100 ? "\\x" + hex(scalar.value, digits: 2) : "\\u{" + hex(scalar.value, digits: 4) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Every line of `text` escaped, its line breaks kept.
    static func lines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { escaped(String($0)) }.joined(separator: "\n")
    }

    /// Whether the text shown as is could move the cursor, change the terminal or disguise itself.
    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x2028, 0x2029: true
        case 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F: true
        default: false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
