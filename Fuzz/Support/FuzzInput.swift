// Compiled into every fuzz target (Fuzz/build.sh): reading libFuzzer's bytes.

/// The bytes libFuzzer passed in, read front to back; reads past the end give nothing.
struct FuzzInput {
    /// Every input byte.
    let all: [UInt8]
    private var position = 0

    /// Copies libFuzzer's buffer.
    init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        all = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { position >= all.count }

    /// The next byte, or nil at the end.
    mutating func byte() -> UInt8? {
        guard position < all.count else { return nil }
        defer { position += 1 }
        return all[position]
    }

    /// A run whose length is the next byte modulo `maximum + 1` (shorter at the end of the input).
    mutating func run(maximum: Int) -> [UInt8] {
        guard let length = byte() else { return [] }
        let count = min(Int(length) % (maximum + 1), all.count - position)
        defer { position += count }
        return Array(all[position..<(position + count)])
    }

    /// The next `count` bytes as a little-endian unsigned integer (zeros past the end).
    mutating func unsigned(bytes count: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<min(count, 8) { value |= UInt64(byte() ?? 0) << (8 * UInt64(index)) }
        return value
    }

    /// A 32-bit value over its whole range: an edge (0, 1, 2^31, 2^32 − 1, …) or four input bytes.
    mutating func uint32() -> UInt32 {
        let edges: [UInt32] = [0, 1, 255, 256, 65_535, 65_536, 1 << 20, (1 << 20) + 1, 1 << 31, .max]
        guard let mode = byte() else { return 0 }
        if mode & 1 == 0 { return edges[Int(mode >> 1) % edges.count] }
        return UInt32(truncatingIfNeeded: unsigned(bytes: 4))
    }

    /// An integer a device could encode in CBOR, over every range CBOR has: an edge of some field's range
    /// (−2^63, −1, 0, 63, 64, 65535, 65536, 2^31, 2^32, 2^63 − 1, …), a full 64-bit unsigned value (beyond `Int`
    /// too), a full 64-bit negative one (down to −2^64), or a small signed value.
    mutating func cborInteger() -> (major0: Bool, magnitude: UInt64) {
        let edges: [Int] = [.min, .min + 1, -1, 0, 1, 63, 64, 255, 256, 65_535, 65_536, Int(Int32.max), 1 << 31,
                            Int(UInt32.max), 1 << 32, .max]
        guard let mode = byte() else { return (true, 0) }
        let signed: Int
        switch mode % 4 {
        case 0: signed = edges[Int(mode >> 2) % edges.count]
        case 1: return (true, unsigned(bytes: 8))
        case 2: return (false, unsigned(bytes: 8))
        default: signed = Int(Int8(bitPattern: byte() ?? 0))
        }
        return signed >= 0 ? (true, UInt64(signed)) : (false, UInt64(-(signed + 1)))
    }

    /// The rest of the input.
    mutating func rest() -> [UInt8] {
        defer { position = all.count }
        return position < all.count ? Array(all[position...]) : []
    }
}
