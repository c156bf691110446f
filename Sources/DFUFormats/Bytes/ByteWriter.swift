/// Builds a frame: integers and byte runs appended in order.
///
/// The verbs follow SwiftNIO's `ByteBuffer` (`writeInteger(_:endianness:)`, `writeBytes(_:)`, each returning
/// how many bytes it wrote). Unlike SwiftNIO, integers are little-endian unless told otherwise: every
/// DFU field is.
public struct ByteWriter: Sendable, Hashable {
    /// The bytes written so far.
    public private(set) var bytes: [UInt8] = []

    /// Starts an empty frame.
    public init() {}

    /// How many bytes were written (the index the next byte goes to).
    public var writerIndex: Int { bytes.count }

    /// Appends an integer in the given byte order; returns its size.
    @discardableResult
    public mutating func writeInteger<T: FixedWidthInteger>(_ value: T, endianness: Endianness = .little,
                                                            as type: T.Type = T.self) -> Int {
        let size = MemoryLayout<T>.size
        for index in 0..<size {
            let shift = (endianness == .little ? index : size - 1 - index) * 8
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
        return size
    }

    /// Appends raw bytes; returns how many.
    @discardableResult
    public mutating func writeBytes(_ other: some Sequence<UInt8>) -> Int {
        let before = bytes.count
        bytes.append(contentsOf: other)
        return bytes.count - before
    }
}
