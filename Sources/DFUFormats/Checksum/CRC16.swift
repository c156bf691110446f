/// The CRC-16/CCITT-FALSE checksum of Legacy DFU init packets.
///
/// Polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR; the check value of
/// "123456789" is 0x29B1. No library on the system offers this variant, so it is written here,
/// table-driven and running like ``DFUCrypto/CRC32``.
public struct CRC16: Sendable, Hashable {
    /// The checksum of everything fed so far.
    public private(set) var value: UInt16

    /// A checksum of no bytes (0xFFFF, the initial value).
    public init() { value = 0xFFFF }

    /// Feeds more bytes.
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let start = value
        value =
            bytes.withContiguousStorageIfAvailable { Self.feed($0, from: start) }
            ?? Array(bytes).withUnsafeBufferPointer { Self.feed($0, from: start) }
    }

    /// Feeds contiguous bytes through the table without the per-byte bounds checks of an array (any other
    /// sequence is copied into one first: one loop for both).
    private static func feed(_ bytes: UnsafeBufferPointer<UInt8>, from start: UInt16) -> UInt16 {
        table.withUnsafeBufferPointer { table in
            var crc = start
            for byte in bytes {
                crc = (crc << 8) ^ table[Int(UInt8(truncatingIfNeeded: crc >> 8) ^ byte)]
            }
            return crc
        }
    }

    /// The checksum of `bytes`.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc = CRC16()
        crc.update(bytes)
        return crc.value
    }

    /// The remainder of each byte value shifted through the polynomial.
    private static let table: [UInt16] = (0..<256).map { index in
        var remainder = UInt16(index) << 8
        for _ in 0..<8 {
            remainder = remainder & 0x8000 != 0 ? (remainder << 1) ^ 0x1021 : remainder << 1
        }
        return remainder
    }
}
