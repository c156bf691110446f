extension Array where Element == UInt8 {
    /// The bytes as space-separated lowercase hex, e.g. `60 06 01`.
    public var hexDescription: String {
        map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ")
    }

    /// At most `limit` bytes as ``hexDescription``, then "… (N bytes)": for bytes a device sent,
    /// which may be as long as it likes, in one-line messages.
    public func hexDescription(upTo limit: Int) -> String {
        count <= limit ? hexDescription : Array(prefix(limit)).hexDescription + " … (\(count) bytes)"
    }
}
