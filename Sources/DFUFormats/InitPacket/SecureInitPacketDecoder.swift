/// Decodes the protobuf bytes of a Secure init packet into a ``SecureInitPacket``.
///
/// Follows `dfu-cc.proto` (proto2): unknown fields of known wire types are skipped, known
/// fields must have their declared wire type (`sd_req` is accepted packed and unpacked), and the
/// fields proto2 marks `required` must be present.
struct SecureInitPacketDecoder {
    /// Field names of each message, by number.
    private static let packetFields: [UInt32: String] = [1: "command", 2: "signed_command"]
    private static let signedCommandFields: [UInt32: String] = [1: "command", 2: "signature_type", 3: "signature"]
    private static let commandFields: [UInt32: String] = [1: "op_code", 2: "init", 3: "reset"]
    private static let resetFields: [UInt32: String] = [1: "timeout"]
    private static let initFields: [UInt32: String] = [
        1: "fw_version", 2: "hw_version", 3: "sd_req", 4: "type", 5: "sd_size", 6: "bl_size", 7: "app_size",
        8: "hash", 9: "is_debug", 10: "boot_validation",
    ]
    private static let hashFields: [UInt32: String] = [1: "hash_type", 2: "hash"]
    private static let bootValidationFields: [UInt32: String] = [1: "type", 2: "bytes"]

    /// Decodes a whole `Packet`.
    static func decode(_ bytes: [UInt8]) throws(InitPacketDefect) -> SecureInitPacket {
        guard !bytes.isEmpty else { throw .empty }
        var command: ArraySlice<UInt8>? = nil
        var signed: ArraySlice<UInt8>? = nil
        try forEachField(of: bytes[...], names: packetFields, path: "") { field, name throws(InitPacketDefect) in
            switch field.number {
            case 1: command = try lengthDelimited(field, name)
            case 2: signed = try lengthDelimited(field, name)
            default: break
            }
        }
        if let signed {
            var inner: ArraySlice<UInt8>? = nil
            var type: UInt32? = nil
            var signature: ArraySlice<UInt8>? = nil
            try forEachField(of: signed, names: signedCommandFields, path: "signed_command.") { field, name throws(InitPacketDefect) in
                switch field.number {
                case 1: inner = try lengthDelimited(field, name)
                case 2: type = try uint32(field, name)
                case 3: signature = try lengthDelimited(field, name)
                default: break
                }
            }
            guard let inner else { throw .missingField(InitPacketDefect.field(1, "signed_command.command")) }
            guard let type else { throw .missingField(InitPacketDefect.field(2, "signed_command.signature_type")) }
            guard let signature else { throw .missingField(InitPacketDefect.field(3, "signed_command.signature")) }
            return try decodeCommand(
                inner, path: "signed_command.command.",
                signature: SecureInitPacket.Signature(type: SecureInitPacket.SignatureType(rawValue: type), bytes: Array(signature)))
        }
        guard let command else { throw .noCommand }
        return try decodeCommand(command, path: "command.", signature: nil)
    }

    private static func decodeCommand(
        _ bytes: ArraySlice<UInt8>, path: String, signature: SecureInitPacket.Signature?
    ) throws(InitPacketDefect) -> SecureInitPacket {
        var opCode: UInt32? = nil
        var initBytes: ArraySlice<UInt8>? = nil
        var resetBytes: ArraySlice<UInt8>? = nil
        try forEachField(of: bytes, names: commandFields, path: path) { field, name throws(InitPacketDefect) in
            switch field.number {
            case 1: opCode = try uint32(field, name)
            case 2: initBytes = try lengthDelimited(field, name)
            case 3: resetBytes = try lengthDelimited(field, name)
            default: break
            }
        }
        var resetTimeout: UInt32? = nil
        if let resetBytes {
            try forEachField(of: resetBytes, names: resetFields, path: "reset.") { field, name throws(InitPacketDefect) in
                if field.number == 1 { resetTimeout = try uint32(field, name) }
            }
            guard resetTimeout != nil else { throw .missingField(InitPacketDefect.field(1, "reset.timeout")) }
        }
        return SecureInitPacket(
            opCode: opCode.map(SecureInitPacket.OpCode.init(rawValue:)),
            initCommand: try initBytes.map { bytes throws(InitPacketDefect) in try decodeInitCommand(bytes) },
            initCommandBytes: initBytes.map(Array.init) ?? [],
            signature: signature,
            resetTimeout: resetTimeout)
    }

    private static func decodeInitCommand(_ bytes: ArraySlice<UInt8>) throws(InitPacketDefect) -> SecureInitPacket.InitCommand {
        var command = SecureInitPacket.InitCommand()
        try forEachField(of: bytes, names: initFields, path: "") { field, name throws(InitPacketDefect) in
            switch field.number {
            case 1: command.firmwareVersion = try uint32(field, name)
            case 2: command.hardwareVersion = try uint32(field, name)
            case 3:
                // Repeated uint32: one value per field unpacked, or a run of varints packed.
                switch field.value {
                case .varint: command.softdeviceRequirements.append(try uint32(field, name))
                case .lengthDelimited(let packed):
                    switch ProtobufWireReader.packedVarints(packed) {
                    case .values(let values):
                        for value in values {
                            guard let narrow = UInt32(exactly: value) else { throw .valueOutOfRange(field: name) }
                            command.softdeviceRequirements.append(narrow)
                        }
                    case .truncated: throw .truncated(field: name)
                    case .overlong: throw .overlongVarint(field: name)
                    }
                default: throw .wrongWireType(field.value.wireType, field: name)
                }
            case 4: command.firmwareType = SecureInitPacket.FirmwareType(rawValue: try uint32(field, name))
            case 5: command.softdeviceSize = try uint32(field, name)
            case 6: command.bootloaderSize = try uint32(field, name)
            case 7: command.applicationSize = try uint32(field, name)
            case 8: command.hash = try decodeHash(try lengthDelimited(field, name))
            case 9: command.isDebug = try varint(field, name) != 0
            case 10: command.bootValidations.append(try decodeBootValidation(try lengthDelimited(field, name)))
            default: break
            }
        }
        return command
    }

    private static func decodeHash(_ bytes: ArraySlice<UInt8>) throws(InitPacketDefect) -> SecureInitPacket.Hash {
        let (type, digest) = try decodeTypeAndBytes(bytes, names: hashFields, path: "hash.")
        return SecureInitPacket.Hash(type: SecureInitPacket.HashType(rawValue: type), bytes: digest)
    }

    private static func decodeBootValidation(_ bytes: ArraySlice<UInt8>) throws(InitPacketDefect) -> SecureInitPacket.BootValidation {
        let (type, payload) = try decodeTypeAndBytes(bytes, names: bootValidationFields, path: "boot_validation.")
        return SecureInitPacket.BootValidation(type: SecureInitPacket.ValidationType(rawValue: type), bytes: payload)
    }

    /// A message of two required fields, a type (1, varint) and its bytes (2): `Hash` and `BootValidation`.
    private static func decodeTypeAndBytes(_ bytes: ArraySlice<UInt8>, names: [UInt32: String], path: String)
        throws(InitPacketDefect) -> (type: UInt32, bytes: [UInt8])
    {
        var type: UInt32? = nil
        var payload: ArraySlice<UInt8>? = nil
        try forEachField(of: bytes, names: names, path: path) { field, name throws(InitPacketDefect) in
            switch field.number {
            case 1: type = try uint32(field, name)
            case 2: payload = try lengthDelimited(field, name)
            default: break
            }
        }
        guard let type else { throw .missingField(InitPacketDefect.field(1, path + (names[1] ?? "1"))) }
        guard let payload else { throw .missingField(InitPacketDefect.field(2, path + (names[2] ?? "2"))) }
        return (type, Array(payload))
    }

    /// Calls `body` with every field of the message in `bytes` and the text naming it.
    private static func forEachField(
        of bytes: ArraySlice<UInt8>, names: [UInt32: String], path: String,
        _ body: (ProtobufWireReader.Field, String) throws(InitPacketDefect) -> Void
    ) throws(InitPacketDefect) {
        var reader = ProtobufWireReader(bytes)
        let label = { (number: UInt32) in InitPacketDefect.field(number, names[number].map { path + $0 }) }
        while true {
            let next: ProtobufWireReader.Field?
            do {
                next = try reader.next()
            } catch {
                switch error {
                case .truncated(let number): throw .truncated(field: number.map(label))
                case .overlongVarint(let number): throw .overlongVarint(field: number.map(label))
                case .unsupportedWireType(let type, let number): throw .unsupportedWireType(type, field: label(number))
                case .fieldNumberZero: throw .fieldNumberZero
                }
            }
            guard let field = next else { return }
            try body(field, label(field.number))
        }
    }

    private static func varint(_ field: ProtobufWireReader.Field, _ name: String) throws(InitPacketDefect) -> UInt64 {
        guard case .varint(let value) = field.value else { throw .wrongWireType(field.value.wireType, field: name) }
        return value
    }

    private static func uint32(_ field: ProtobufWireReader.Field, _ name: String) throws(InitPacketDefect) -> UInt32 {
        guard let value = UInt32(exactly: try varint(field, name)) else { throw .valueOutOfRange(field: name) }
        return value
    }

    private static func lengthDelimited(_ field: ProtobufWireReader.Field, _ name: String) throws(InitPacketDefect) -> ArraySlice<UInt8> {
        guard case .lengthDelimited(let bytes) = field.value else { throw .wrongWireType(field.value.wireType, field: name) }
        return bytes
    }
}

extension SecureInitPacket {
    /// Decodes the protobuf bytes of a `.dat` file.
    public init(bytes: [UInt8]) throws(InitPacketDefect) {
        self = try SecureInitPacketDecoder.decode(bytes)
    }
}
