/// Why the bytes of an init packet could not be decoded.
///
/// Field references read like `field 8 'hash'`; nested fields are named by their path inside
/// the message that holds them, e.g. `field 2 'hash.hash'`.
public enum InitPacketDefect: Error, Sendable, Hashable, CustomStringConvertible {
    /// The init packet has no bytes.
    case empty
    /// The bytes end inside a field (nil: inside a field's tag).
    case truncated(field: String?)
    /// A varint is longer than 10 bytes or does not fit in 64 bits.
    case overlongVarint(field: String?)
    /// A tag uses wire type 3, 4, 6 or 7 (groups or undefined), which init packets never use.
    case unsupportedWireType(UInt8, field: String)
    /// A tag has field number 0.
    case fieldNumberZero
    /// A known field arrived with the wrong wire type.
    case wrongWireType(UInt8, field: String)
    /// A value does not fit its field (e.g. above 2³²−1 for a `uint32`).
    case valueOutOfRange(field: String)
    /// A required field is absent.
    case missingField(String)
    /// The packet has neither `command` nor `signed_command`.
    case noCommand
    /// A Legacy init packet is shorter than its layout needs.
    case tooShort(size: Int, needed: Int)
    /// A Legacy init packet has bytes after its last field.
    case trailingBytes(count: Int)
    /// A Legacy extended init packet names an extension other than 0, 1 or 2.
    case unknownExtension(UInt32)

    /// One phrase starting with "init packet", e.g. `init packet is truncated (ends inside field 8 'hash')`.
    public var description: String {
        switch self {
        case .empty: "init packet is empty"
        case .truncated(let field?): "init packet is truncated (ends inside \(field))"
        case .truncated(nil): "init packet is truncated (ends inside a field tag)"
        case .overlongVarint(let field?): "init packet has an overlong varint in \(field)"
        case .overlongVarint(nil): "init packet has an overlong varint in a field tag"
        case .unsupportedWireType(let type, let field): "init packet uses wire type \(type) in \(field), which is not allowed"
        case .fieldNumberZero: "init packet has a field numbered 0"
        case .wrongWireType(let type, let field): "init packet has wire type \(type) for \(field)"
        case .valueOutOfRange(let field): "init packet has a value out of range in \(field)"
        case .missingField(let field): "init packet lacks the required \(field)"
        case .noCommand: "init packet has neither field 1 'command' nor field 2 'signed_command'"
        case .tooShort(let size, let needed): "init packet has \(size) bytes, fewer than the \(needed) its layout needs"
        case .trailingBytes(let count): "init packet has \(count) unexpected bytes after its last field"
        case .unknownExtension(let id): "init packet names unknown extension \(id)"
        }
    }

    /// The text naming field `number` of a message, e.g. `field 8 'hash'`.
    static func field(_ number: UInt32, _ name: String?) -> String {
        name.map { "field \(number) '\($0)'" } ?? "field \(number)"
    }
}
