internal import JSON

/// One line of JSON on standard output (`--json`): compact, keys sorted, `/` not escaped, absent optional
/// fields left out, ending in a newline.
enum JSONLine {
    /// `value`'s line.
    static func encoded(_ value: some Encodable) throws -> String {
        try JSONValueEncoder().encode(value).serialized() + "\n"
    }
}
