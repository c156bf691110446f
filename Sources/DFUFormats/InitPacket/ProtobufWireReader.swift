/// Reads protobuf wire-format fields one at a time, bounds-checked, from a byte slice.
///
/// Only what init packets need: varints (at most 10 bytes), 64-bit, length-delimited and
/// 32-bit fields. Group wire types (3, 4) and the unused ones (6, 7) are refused, as are field
/// number 0, overlong varints and lengths that run past the end.
struct ProtobufWireReader {
    /// One decoded field.
    struct Field {
        /// The field number from the tag.
        let number: UInt32
        /// The field's value as found on the wire.
        let value: Value
    }

    /// A wire value.
    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case lengthDelimited(ArraySlice<UInt8>)
        case fixed32(UInt32)

        /// The wire type number (0, 1, 2 or 5).
        var wireType: UInt8 {
            switch self {
            case .varint: 0
            case .fixed64: 1
            case .lengthDelimited: 2
            case .fixed32: 5
            }
        }
    }

    /// Why the wire bytes could not be read.
    enum Failure: Error, Equatable {
        /// The bytes end inside the tag or value of a field (`field` is nil inside a tag).
        case truncated(field: UInt32?)
        /// A varint is longer than 10 bytes or overflows 64 bits.
        case overlongVarint(field: UInt32?)
        /// The tag has wire type 3, 4, 6 or 7.
        case unsupportedWireType(UInt8, field: UInt32)
        /// The tag has field number 0.
        case fieldNumberZero
    }

    private var reader: ByteReader

    /// Reads the fields of one message encoded in `bytes`.
    init(_ bytes: ArraySlice<UInt8>) {
        reader = ByteReader(bytes)
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { reader.readableBytes == 0 }

    /// The next field, or nil at the end of the message.
    mutating func next() throws(Failure) -> Field? {
        guard !isAtEnd else { return nil }
        let tag: UInt64
        switch Self.readVarint(&reader) {
        case .value(let value): tag = value
        case .truncated: throw .truncated(field: nil)
        case .overlong: throw .overlongVarint(field: nil)
        }
        let wireType = UInt8(tag & 7)
        guard tag >> 3 <= UInt64(UInt32.max >> 3) else { throw .overlongVarint(field: nil) }
        let number = UInt32(tag >> 3)
        guard number != 0 else { throw .fieldNumberZero }
        switch wireType {
        case 0:
            switch Self.readVarint(&reader) {
            case .value(let value): return Field(number: number, value: .varint(value))
            case .truncated: throw .truncated(field: number)
            case .overlong: throw .overlongVarint(field: number)
            }
        case 1:
            guard let value = reader.readInteger(as: UInt64.self) else { throw .truncated(field: number) }
            return Field(number: number, value: .fixed64(value))
        case 2:
            let length: UInt64
            switch Self.readVarint(&reader) {
            case .value(let value): length = value
            case .truncated: throw .truncated(field: number)
            case .overlong: throw .overlongVarint(field: number)
            }
            guard length <= UInt64(reader.readableBytes), let bytes = reader.readSlice(length: Int(length)) else {
                throw .truncated(field: number)
            }
            return Field(number: number, value: .lengthDelimited(bytes))
        case 5:
            guard let value = reader.readInteger(as: UInt32.self) else { throw .truncated(field: number) }
            return Field(number: number, value: .fixed32(value))
        default:
            throw .unsupportedWireType(wireType, field: number)
        }
    }

    /// The outcome of reading one varint.
    enum VarintResult: Equatable {
        case value(UInt64)
        case truncated
        case overlong
    }

    /// Reads a base-128 varint of at most 10 bytes whose value fits in 64 bits.
    static func readVarint(_ reader: inout ByteReader) -> VarintResult {
        var value: UInt64 = 0
        for index in 0..<10 {
            guard let byte = reader.readByte() else { return .truncated }
            let payload = UInt64(byte & 0x7F)
            // The tenth byte may only carry the top bit of a 64-bit value.
            if index == 9 && payload > 1 { return .overlong }
            value |= payload << (7 * UInt64(index))
            if byte & 0x80 == 0 { return .value(value) }
        }
        return .overlong
    }

    /// The varints packed in a length-delimited value (a `[packed = true]` repeated field).
    static func packedVarints(_ bytes: ArraySlice<UInt8>) -> VarintResultList {
        var reader = ByteReader(bytes)
        var values: [UInt64] = []
        while reader.readableBytes > 0 {
            switch readVarint(&reader) {
            case .value(let value): values.append(value)
            case .truncated: return .truncated
            case .overlong: return .overlong
            }
        }
        return .values(values)
    }

    /// The outcome of reading packed varints.
    enum VarintResultList: Equatable {
        case values([UInt64])
        case truncated
        case overlong
    }
}
