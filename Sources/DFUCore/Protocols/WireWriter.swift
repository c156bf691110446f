/// Builds little-endian request frames for the DFU protocols.
///
/// Every multi-byte integer on the DFU wire is little-endian; the writer has no other mode.
public struct WireWriter: Sendable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// Starts an empty frame.
    public init() {}

    /// Appends one byte.
    public mutating func write(_ value: UInt8) { bytes.append(value) }

    /// Appends a 16-bit integer, least significant byte first.
    public mutating func write(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    /// Appends a 32-bit integer, least significant byte first.
    public mutating func write(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    /// Appends raw bytes.
    public mutating func write(contentsOf other: some Sequence<UInt8>) { bytes.append(contentsOf: other) }
}
