/// Reads little-endian fields from a notification frame without ever trapping.
///
/// Each `read…` consumes bytes and returns nil when too few are left.
public struct WireReader: Sendable {
    private let bytes: [UInt8]
    /// Index of the next unread byte.
    public private(set) var offset: Int = 0

    /// Reads `bytes` from the start.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// How many bytes are left.
    public var remaining: Int { bytes.count - offset }

    /// Reads one byte.
    public mutating func readByte() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Reads a little-endian 16-bit integer.
    public mutating func readUInt16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    /// Reads a little-endian 32-bit integer.
    public mutating func readUInt32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        var value: UInt32 = 0
        for index in 0..<4 { value |= UInt32(bytes[offset + index]) << UInt32(8 * index) }
        offset += 4
        return value
    }

    /// Reads `count` raw bytes.
    public mutating func readBytes(_ count: Int) -> [UInt8]? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }
}

extension Array where Element == UInt8 {
    /// The bytes as space-separated lowercase hex, e.g. `60 06 01`.
    public var hexDescription: String {
        map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ")
    }
}
