internal import CZlib

/// The IEEE 802.3 CRC-32 that Secure DFU bootloaders report (zlib's `crc32`).
///
/// The value is running: feed bytes with ``update(_:)`` in as many pieces as you like.
/// The corresponding C function is `crc32`.
public struct CRC32: Sendable, Hashable {
    /// The checksum of everything fed so far.
    public private(set) var value: UInt32

    /// A checksum of no bytes (0).
    public init() { value = 0 }

    /// Continues a checksum from a value already computed.
    public init(continuingFrom value: UInt32) { self.value = value }

    /// Feeds more bytes.
    public mutating func update(_ bytes: some Collection<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            value = CRC32.feed(value, buffer)
        }
        if done == nil {
            let copy = Array(bytes)
            copy.withUnsafeBufferPointer { value = CRC32.feed(value, $0) }
        }
    }

    /// The checksum of `bytes`.
    public static func checksum(_ bytes: some Collection<UInt8>) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    private static func feed(_ start: UInt32, _ buffer: UnsafeBufferPointer<UInt8>) -> UInt32 {
        guard var base = buffer.baseAddress, !buffer.isEmpty else { return start }
        var crc = UInt(start)
        var remaining = buffer.count
        // zlib takes a 32-bit length; feed very large buffers in slices.
        while remaining > 0 {
            let slice = min(remaining, Int(UInt32.max >> 1))
            crc = crc32(crc, base, UInt32(slice))
            base += slice
            remaining -= slice
        }
        return UInt32(truncatingIfNeeded: crc)
    }
}
