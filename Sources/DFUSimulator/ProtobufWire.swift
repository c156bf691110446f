/// The few protobuf wire-format pieces tests need to build init packets (decoding is the core's).
enum ProtobufWire {
    /// Encodes a varint.
    static func encode(varint value: UInt64) -> [UInt8] {
        var out: [UInt8] = []
        var rest = value
        repeat {
            var byte = UInt8(rest & 0x7F)
            rest >>= 7
            if rest != 0 { byte |= 0x80 }
            out.append(byte)
        } while rest != 0
        return out
    }

    /// Encodes a varint field.
    static func field(_ number: Int, varint value: UInt64) -> [UInt8] {
        encode(varint: UInt64(number << 3)) + encode(varint: value)
    }

    /// Encodes a length-delimited field.
    static func field(_ number: Int, bytes value: [UInt8]) -> [UInt8] {
        encode(varint: UInt64(number << 3 | 2)) + encode(varint: UInt64(value.count)) + value
    }
}
