@testable import DFUCore
import Testing
@testable import DFUFormats

@Suite struct SecureInitPacketTests {
    /// An unsigned init packet for a 1024-byte application, annotated field by field.
    static let unsignedApplication: [UInt8] = [
        0x0A, 0x28,  // Packet.command (field 1, LEN), 40 bytes
        /**/ 0x08, 0x01,  // Command.op_code (field 1, varint) = INIT
        /**/ 0x12, 0x24,  // Command.init (field 2, LEN), 36 bytes
        /*  */ 0x08, 0x07,  // InitCommand.fw_version (1) = 7
        /*  */ 0x10, 0x34,  // InitCommand.hw_version (2) = 52
        /*  */ 0x1A, 0x03, 0xCA, 0x01, 0x10,  // sd_req (3, packed, 3 bytes) = [0xCA, 0x10]
        /*  */ 0x20, 0x00,  // type (4) = APPLICATION
        /*  */ 0x28, 0x00,  // sd_size (5) = 0
        /*  */ 0x30, 0x00,  // bl_size (6) = 0
        /*  */ 0x38, 0x80, 0x08,  // app_size (7) = 1024
        /*  */ 0x42, 0x08,  // hash (8, LEN), 8 bytes
        /*    */ 0x08, 0x03,  // Hash.hash_type (1) = SHA256
        /*    */ 0x12, 0x04, 0xDE, 0xAD, 0xBE, 0xEF,  // Hash.hash (2), 4 bytes (short, for the fixture)
        /*  */ 0x48, 0x01,  // is_debug (9) = true
        /*  */ 0x52, 0x04,  // boot_validation (10, LEN), 4 bytes
        /*    */ 0x08, 0x01,  // BootValidation.type (1) = VALIDATE_GENERATED_CRC
        /*    */ 0x12, 0x00,  // BootValidation.bytes (2), empty
    ]

    @Test func decodesEveryFieldOfAnUnsignedPacket() throws {
        let packet = try SecureInitPacket(bytes: Self.unsignedApplication)
        #expect(packet.opCode == .`init`)
        #expect(packet.signature == nil)
        #expect(packet.initCommandBytes == Array(Self.unsignedApplication[6...]))
        let command = try #require(packet.initCommand)
        #expect(command.firmwareVersion == 7)
        #expect(command.hardwareVersion == 52)
        #expect(command.softdeviceRequirements == [0xCA, 0x10])
        #expect(command.firmwareType == .application)
        #expect(command.softdeviceSize == 0)
        #expect(command.bootloaderSize == 0)
        #expect(command.applicationSize == 1024)
        #expect(command.hash == SecureInitPacket.Hash(type: .sha256, bytes: [0xDE, 0xAD, 0xBE, 0xEF]))
        #expect(command.isDebug)
        #expect(command.bootValidations == [SecureInitPacket.BootValidation(type: .generatedCRC, bytes: [])])
    }

    @Test func absentFieldsStayNil() throws {
        // Packet.command { op_code: INIT, init: {} }
        let packet = try SecureInitPacket(bytes: [0x0A, 0x04, 0x08, 0x01, 0x12, 0x00])
        #expect(packet.initCommand == SecureInitPacket.InitCommand())
        #expect(packet.initCommand?.firmwareVersion == nil)
    }

    @Test func unpackedSdReqIsAccepted() throws {
        let initCommand: [UInt8] = [
            0x18, 0xCA, 0x01,  // sd_req (3, varint) = 0xCA
            0x18, 0x10,  // sd_req (3, varint) = 0x10
        ]
        let packet = try SecureInitPacket(bytes: Proto.bytes(1, Proto.uint(1, 1) + Proto.bytes(2, initCommand)))
        #expect(packet.initCommand?.softdeviceRequirements == [0xCA, 0x10])
    }

    @Test func unknownFieldsOfKnownWireTypesAreSkipped() throws {
        let initCommand: [UInt8] =
            [0x08, 0x05]  // fw_version = 5
            + [0xA0, 0x01, 0x2A]  // field 20, varint 42
            + [0xA9, 0x01, 1, 2, 3, 4, 5, 6, 7, 8]  // field 21, fixed64
            + [0xB2, 0x01, 0x02, 0xAA, 0xBB]  // field 22, LEN 2
            + [0xBD, 0x01, 1, 2, 3, 4]  // field 23, fixed32
            + [0x10, 0x06]  // hw_version = 6
        let packet = try SecureInitPacket(bytes: Proto.bytes(1, Proto.uint(1, 1) + Proto.bytes(2, initCommand)))
        #expect(packet.initCommand?.firmwareVersion == 5)
        #expect(packet.initCommand?.hardwareVersion == 6)
    }

    @Test func truncationAtEveryByteIsAnError() {
        let bytes = Self.unsignedApplication
        for length in 1..<bytes.count {
            #expect(throws: InitPacketDefect.self, "prefix of \(length) bytes") {
                _ = try SecureInitPacket(bytes: Array(bytes[..<length]))
            }
        }
    }

    struct Malformed: CustomTestStringConvertible, Sendable {
        let testDescription: String
        let bytes: [UInt8]
        let defect: InitPacketDefect
        let message: String
    }

    /// `Packet.command { op_code INIT, init { <initCommand> } }` with lengths computed.
    static func wrap(_ initCommand: [UInt8]) -> [UInt8] {
        Proto.bytes(1, Proto.uint(1, 1) + Proto.bytes(2, initCommand))
    }

    @Test(arguments: [
        Malformed(
            testDescription: "empty", bytes: [], defect: .empty, message: "init packet is empty"),
        Malformed(
            testDescription: "command runs past the end", bytes: [0x0A, 0x05, 0x08, 0x01],
            defect: .truncated(field: "field 1 'command'"), message: "init packet is truncated (ends inside field 1 'command')"),
        Malformed(
            testDescription: "hash runs past the end of init",
            bytes: wrap([0x42, 0x08, 0x08, 0x03]),  // hash (8) says 8 bytes, 2 follow
            defect: .truncated(field: "field 8 'hash'"), message: "init packet is truncated (ends inside field 8 'hash')"),
        Malformed(
            testDescription: "digest runs past the end of hash",
            bytes: wrap([0x42, 0x04, 0x08, 0x03, 0x12, 0x20]),  // Hash.hash says 32 bytes, none follow
            defect: .truncated(field: "field 2 'hash.hash'"), message: "init packet is truncated (ends inside field 2 'hash.hash')"),
        Malformed(
            testDescription: "tag cut short", bytes: [0x8A],
            defect: .truncated(field: nil), message: "init packet is truncated (ends inside a field tag)"),
        Malformed(
            testDescription: "varint of 11 bytes", bytes: wrap([0x08] + [UInt8](repeating: 0x80, count: 10) + [0x01]),
            defect: .overlongVarint(field: "field 1 'fw_version'"), message: "init packet has an overlong varint in field 1 'fw_version'"),
        Malformed(
            testDescription: "varint beyond 64 bits", bytes: wrap([0x08] + [UInt8](repeating: 0xFF, count: 9) + [0x02]),
            defect: .overlongVarint(field: "field 1 'fw_version'"), message: "init packet has an overlong varint in field 1 'fw_version'"),
        Malformed(
            testDescription: "wire type 3 (start group)", bytes: wrap([0x0B]),
            defect: .unsupportedWireType(3, field: "field 1 'fw_version'"),
            message: "init packet uses wire type 3 in field 1 'fw_version', which is not allowed"),
        Malformed(
            testDescription: "wire type 4 (end group)", bytes: wrap([0xA4, 0x01]),
            defect: .unsupportedWireType(4, field: "field 20"), message: "init packet uses wire type 4 in field 20, which is not allowed"),
        Malformed(
            testDescription: "wire type 6", bytes: wrap([0x0E]),
            defect: .unsupportedWireType(6, field: "field 1 'fw_version'"),
            message: "init packet uses wire type 6 in field 1 'fw_version', which is not allowed"),
        Malformed(
            testDescription: "wire type 7", bytes: [0x0F],
            defect: .unsupportedWireType(7, field: "field 1 'command'"),
            message: "init packet uses wire type 7 in field 1 'command', which is not allowed"),
        Malformed(
            testDescription: "field number 0", bytes: [0x00, 0x01], defect: .fieldNumberZero, message: "init packet has a field numbered 0"),
        Malformed(
            testDescription: "hash as a varint", bytes: wrap([0x40, 0x01]),
            defect: .wrongWireType(0, field: "field 8 'hash'"), message: "init packet has wire type 0 for field 8 'hash'"),
        Malformed(
            testDescription: "fw_version over 32 bits", bytes: wrap(Proto.uint(1, 1 << 32)),
            defect: .valueOutOfRange(field: "field 1 'fw_version'"), message: "init packet has a value out of range in field 1 'fw_version'"),
        Malformed(
            testDescription: "hash without hash_type", bytes: wrap(Proto.bytes(8, Proto.bytes(2, [1, 2]))),
            defect: .missingField("field 1 'hash.hash_type'"), message: "init packet lacks the required field 1 'hash.hash_type'"),
        Malformed(
            testDescription: "signed command without signature",
            bytes: Proto.bytes(2, Proto.bytes(1, Proto.uint(1, 1)) + Proto.uint(2, 0)),
            defect: .missingField("field 3 'signed_command.signature'"),
            message: "init packet lacks the required field 3 'signed_command.signature'"),
        Malformed(
            testDescription: "no command", bytes: Proto.uint(5, 1), defect: .noCommand,
            message: "init packet has neither field 1 'command' nor field 2 'signed_command'"),
    ])
    func malformedPacketsAreRefusedWithTheirCause(_ bad: Malformed) {
        #expect(throws: bad.defect) { _ = try SecureInitPacket(bytes: bad.bytes) }
        #expect(bad.defect.description == bad.message)
    }

    @Test func tenByteVarintWithTopBitDecodes() {
        var reader = ByteReader([UInt8](repeating: 0xFF, count: 9) + [0x01])
        #expect(ProtobufWireReader.readVarint(&reader) == .value(UInt64.max))
    }

    @Test(.enabled(if: SharedData.fixtureExists("Signing/signed_app.zip")))
    func signedPacketKeepsTheInitCommandBytesThatWereSigned() throws {
        let dat = try SharedData.fixtureEntry("Signing/signed_app.zip", "app.dat")
        let packet = try SecureInitPacket(bytes: dat)
        #expect(packet.initCommandBytes == Array(dat[9..<73]))
        #expect(packet.signature?.type == .ecdsaP256SHA256)
        #expect(packet.signature?.bytes == Array(dat[(dat.count - 64)...]))
        let command = try #require(packet.initCommand)
        #expect(command.firmwareVersion == 7)
        #expect(command.hardwareVersion == 52)
        #expect(command.applicationSize == 1028)
        #expect(command.bootValidations.map(\.type) == [.generatedCRC])
    }
}
