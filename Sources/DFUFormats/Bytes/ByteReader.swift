/// A cursor over bytes that reads integers and byte runs, never past the end.
///
/// The verbs follow SwiftNIO's `ByteBuffer`: `read…` consumes and moves the reader index,
/// `get…(at:)` looks without moving; every read returns nil when too few bytes remain, so a
/// decoder turns short input into its own typed error instead of trapping. Unlike SwiftNIO, whose
/// default is big-endian, integers are little-endian unless told otherwise: every DFU field is.
public struct ByteReader: Sendable, Hashable {
    /// The bytes being read; indices are those of the original collection.
    public let bytes: ArraySlice<UInt8>
    /// The index of the next byte to read.
    public private(set) var readerIndex: Int

    /// Reads `bytes` from their start.
    public init(_ bytes: [UInt8]) {
        self.init(bytes[...])
    }

    /// Reads `bytes` from their start index.
    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.readerIndex = bytes.startIndex
    }

    /// How many bytes are left to read.
    public var readableBytes: Int { bytes.endIndex - readerIndex }

    /// How many bytes have been read so far.
    public var bytesRead: Int { readerIndex - bytes.startIndex }

    /// Reads an integer, or returns nil (reading nothing) when too few bytes remain.
    public mutating func readInteger<T: FixedWidthInteger>(endianness: Endianness = .little, as type: T.Type = T.self) -> T? {
        guard let value = getInteger(at: readerIndex, endianness: endianness, as: type) else { return nil }
        readerIndex += MemoryLayout<T>.size
        return value
    }

    /// The integer at `index`, or nil when it would run past either end.
    public func getInteger<T: FixedWidthInteger>(at index: Int, endianness: Endianness = .little,
                                                 as type: T.Type = T.self) -> T? {
        let size = MemoryLayout<T>.size
        guard index >= bytes.startIndex, index <= bytes.endIndex - size else { return nil }
        var value: T = 0
        for offset in 0..<size {
            let shift = (endianness == .little ? offset : size - 1 - offset) * 8
            value |= T(truncatingIfNeeded: bytes[index + offset]) << shift
        }
        return value
    }

    /// Reads one byte, or returns nil at the end.
    public mutating func readByte() -> UInt8? {
        readInteger(as: UInt8.self)
    }

    /// Reads `length` bytes as a new array, or returns nil (reading nothing) when fewer remain or `length`
    /// is negative.
    public mutating func readBytes(length: Int) -> [UInt8]? {
        readSlice(length: length).map(Array.init)
    }

    /// Reads `length` bytes as a slice of the bytes being read, or returns nil (reading nothing) when fewer
    /// remain or `length` is negative.
    public mutating func readSlice(length: Int) -> ArraySlice<UInt8>? {
        guard length >= 0, length <= readableBytes else { return nil }
        let slice = bytes[readerIndex..<readerIndex + length]
        readerIndex += length
        return slice
    }
}
