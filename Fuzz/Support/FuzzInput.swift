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

    /// The rest of the input.
    mutating func rest() -> [UInt8] {
        defer { position = all.count }
        return position < all.count ? Array(all[position...]) : []
    }
}
