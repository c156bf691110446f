/// Writes a Secure DFU init packet (`.dat`) byte for byte as nrfutil 6.1.7 does: the protobuf
/// messages of `dfu-cc.proto` serialized by python-protobuf, fields in number order, every field
/// nrfutil assigns present even when zero or false (proto2), `sd_req` packed.
///
/// `InitCommand`: fw_version (1), hw_version (2), sd_req (3, packed), type (4), sd_size (5),
/// bl_size (6), app_size (7), hash (8: hash_type 1, hash 2), is_debug (9), boot_validation (10:
/// type 1, bytes 2), as `init_packet_pb.InitPacketPB.__init__` fills them. `Command`: op_code (1)
/// = INIT, init (2). `Packet`: command (1), or signed_command (2: command 1, signature_type 2,
/// signature 3) once `set_signature` has run.
public enum SecureInitPacketEncoder {
    /// The serialized `InitCommand` of `command`: the bytes nrfutil signs.
    public static func initCommandBytes(_ command: SecureInitPacket.InitCommand) -> [UInt8] {
        var out: [UInt8] = []
        if let value = command.firmwareVersion { varintField(1, UInt64(value), into: &out) }
        if let value = command.hardwareVersion { varintField(2, UInt64(value), into: &out) }
        if !command.softdeviceRequirements.isEmpty {
            var packed: [UInt8] = []
            for value in command.softdeviceRequirements { varint(UInt64(value), into: &packed) }
            bytesField(3, packed, into: &out)
        }
        if let value = command.firmwareType { varintField(4, UInt64(value.rawValue), into: &out) }
        if let value = command.softdeviceSize { varintField(5, UInt64(value), into: &out) }
        if let value = command.bootloaderSize { varintField(6, UInt64(value), into: &out) }
        if let value = command.applicationSize { varintField(7, UInt64(value), into: &out) }
        if let hash = command.hash {
            var message: [UInt8] = []
            varintField(1, UInt64(hash.type.rawValue), into: &message)
            bytesField(2, hash.bytes, into: &message)
            bytesField(8, message, into: &out)
        }
        varintField(9, command.isDebug ? 1 : 0, into: &out)
        for validation in command.bootValidations {
            var message: [UInt8] = []
            varintField(1, UInt64(validation.type.rawValue), into: &message)
            bytesField(2, validation.bytes, into: &message)
            bytesField(10, message, into: &out)
        }
        return out
    }

    /// The whole `.dat`: `Packet.command`, or `Packet.signed_command` when `signature` is given
    /// (as stored: r and s each byte-reversed).
    public static func packet(initCommand: [UInt8], signature: SecureInitPacket.Signature?) -> [UInt8] {
        var command: [UInt8] = []
        varintField(1, UInt64(SecureInitPacket.OpCode.`init`.rawValue), into: &command)
        bytesField(2, initCommand, into: &command)
        var out: [UInt8] = []
        guard let signature else {
            bytesField(1, command, into: &out)
            return out
        }
        var signed: [UInt8] = []
        bytesField(1, command, into: &signed)
        varintField(2, UInt64(signature.type.rawValue), into: &signed)
        bytesField(3, signature.bytes, into: &signed)
        bytesField(2, signed, into: &out)
        return out
    }

    private static func varint(_ value: UInt64, into out: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            out.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        out.append(UInt8(rest))
    }

    private static func varintField(_ number: UInt64, _ value: UInt64, into out: inout [UInt8]) {
        varint(number << 3, into: &out)
        varint(value, into: &out)
    }

    private static func bytesField(_ number: UInt64, _ bytes: [UInt8], into out: inout [UInt8]) {
        varint(number << 3 | 2, into: &out)
        varint(UInt64(bytes.count), into: &out)
        out += bytes
    }
}
