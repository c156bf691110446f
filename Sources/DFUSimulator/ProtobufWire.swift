/// The few protobuf wire-format pieces the simulated bootloader needs to read and build init packets.
enum ProtobufWire {
    /// One decoded field: its number and either a varint or a length-delimited payload.
    enum Value {
        case varint(UInt64)
        case bytes([UInt8])
    }

    /// Splits a message into fields; nil when it is malformed.
    static func fields(of bytes: [UInt8]) -> [(number: Int, value: Value)]? {
        var fields: [(Int, Value)] = []
        var index = 0
        while index < bytes.count {
            guard let key = varint(bytes, &index) else { return nil }
            let number = Int(key >> 3)
            switch key & 7 {
            case 0:
                guard let value = varint(bytes, &index) else { return nil }
                fields.append((number, .varint(value)))
            case 2:
                guard let length = varint(bytes, &index), length <= UInt64(bytes.count - index) else { return nil }
                let end = index + Int(length)
                fields.append((number, .bytes(Array(bytes[index..<end]))))
                index = end
            case 5:
                guard index + 4 <= bytes.count else { return nil }
                index += 4
            case 1:
                guard index + 8 <= bytes.count else { return nil }
                index += 8
            default:
                return nil
            }
        }
        return fields
    }

    /// Reads a varint at `index`, moving it; nil when truncated or longer than 10 bytes.
    static func varint(_ bytes: [UInt8], _ index: inout Int) -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while index < bytes.count, shift < 70 {
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }

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
