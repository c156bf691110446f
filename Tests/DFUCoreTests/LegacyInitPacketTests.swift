import DFUCore
import Testing
import DFUFormats

@Suite struct LegacyInitPacketTests {
    /// The extended header shared by the fixtures below.
    static let header: [UInt8] = [
        0x52, 0x00,  // device type 0x0052
        0x01, 0x00,  // device revision 1
        0x07, 0x00, 0x00, 0x00,  // application version 7
        0x02, 0x00,  // two SoftDevice requirements
        0x64, 0x00,  // 0x0064
        0x80, 0x00,  // 0x0080
    ]
    static let decodedHeader = LegacyInitPacket.Header(
        deviceType: 0x52, deviceRevision: 1, applicationVersion: 7, softdeviceRequirements: [0x64, 0x80])
    static let hash = [UInt8](0..<32)
    static let signature = [UInt8](repeating: 0x5A, count: 64)

    struct Layout: CustomTestStringConvertible, Sendable {
        let testDescription: String
        let bytes: [UInt8]
        let dfuVersion: Double?
        let expected: LegacyInitPacket
    }

    @Test(arguments: [
        Layout(
            testDescription: "SDK ≤ 6: CRC only", bytes: [0x30, 0xBD], dfuVersion: 0.5,  // CRC-16 0xBD30
            expected: LegacyInitPacket(header: nil, extensionID: nil, integrity: .crc16(0xBD30))),
        Layout(
            testDescription: "0.5: header + CRC-16", bytes: header + [0x5C, 0x3E], dfuVersion: 0.5,  // CRC-16 0x3E5C
            expected: LegacyInitPacket(header: decodedHeader, extensionID: nil, integrity: .crc16(0x3E5C))),
        Layout(
            testDescription: "0.6: header + extension 0 + CRC-16",
            bytes: header + [0x00, 0x00, 0x00, 0x00] + [0x5C, 0x3E], dfuVersion: 0.6,  // ext id 0, CRC-16 0x3E5C
            expected: LegacyInitPacket(header: decodedHeader, extensionID: 0, integrity: .crc16(0x3E5C))),
        Layout(
            testDescription: "0.7: header + extension 1 + length + SHA-256",
            bytes: header + [0x01, 0x00, 0x00, 0x00] + [0x00, 0x04, 0x00, 0x00] + hash, dfuVersion: 0.7,  // ext 1, 1024 bytes
            expected: LegacyInitPacket(header: decodedHeader, extensionID: 1, integrity: .sha256(length: 1024, hash: hash))),
        Layout(
            testDescription: "0.8: header + extension 2 + length + SHA-256 + signature",
            bytes: header + [0x02, 0x00, 0x00, 0x00] + [0x00, 0x04, 0x00, 0x00] + hash + signature, dfuVersion: 0.8,
            expected: LegacyInitPacket(
                header: decodedHeader, extensionID: 2, integrity: .signedSHA256(length: 1024, hash: hash, signature: signature))),
        Layout(
            testDescription: "no version, 2 bytes after the list: 0.5 layout", bytes: header + [0x5C, 0x3E], dfuVersion: nil,
            expected: LegacyInitPacket(header: decodedHeader, extensionID: nil, integrity: .crc16(0x3E5C))),
        Layout(
            testDescription: "no version, more after the list: extension layout",
            bytes: header + [0x01, 0x00, 0x00, 0x00] + [0x00, 0x04, 0x00, 0x00] + hash, dfuVersion: nil,
            expected: LegacyInitPacket(header: decodedHeader, extensionID: 1, integrity: .sha256(length: 1024, hash: hash))),
    ])
    func decodesEachLayout(_ layout: Layout) throws {
        #expect(try LegacyInitPacket(bytes: layout.bytes, dfuVersion: layout.dfuVersion) == layout.expected)
    }

    struct Malformed: CustomTestStringConvertible, Sendable {
        let testDescription: String
        let bytes: [UInt8]
        let dfuVersion: Double?
        let defect: InitPacketDefect
    }

    @Test(arguments: [
        Malformed(testDescription: "empty", bytes: [], dfuVersion: 0.5, defect: .empty),
        Malformed(testDescription: "one byte", bytes: [0x01], dfuVersion: 0.5, defect: .tooShort(size: 1, needed: 14)),
        Malformed(
            testDescription: "list longer than the packet", bytes: Array(header[..<10]) + [0x64], dfuVersion: 0.5,
            defect: .tooShort(size: 11, needed: 16)),
        Malformed(testDescription: "0.5 without CRC", bytes: header, dfuVersion: 0.5, defect: .tooShort(size: 14, needed: 16)),
        Malformed(
            testDescription: "0.5 with a byte too many", bytes: header + [0x5C, 0x3E, 0x00], dfuVersion: 0.5,
            defect: .trailingBytes(count: 1)),
        Malformed(
            testDescription: "0.7 hash cut short", bytes: header + [0x01, 0, 0, 0, 0x00, 0x04, 0, 0] + hash.prefix(31), dfuVersion: 0.7,
            defect: .tooShort(size: 53, needed: 54)),
        Malformed(
            testDescription: "0.8 without signature", bytes: header + [0x02, 0, 0, 0, 0x00, 0x04, 0, 0] + hash, dfuVersion: 0.8,
            defect: .tooShort(size: 54, needed: 118)),
        Malformed(
            testDescription: "unknown extension", bytes: header + [0x07, 0, 0, 0, 0x5C, 0x3E], dfuVersion: 0.6,
            defect: .unknownExtension(7)),
    ])
    func malformedPacketsAreRefused(_ bad: Malformed) {
        #expect(throws: bad.defect) { _ = try LegacyInitPacket(bytes: bad.bytes, dfuVersion: bad.dfuVersion) }
        #expect(bad.defect.description.hasPrefix("init packet "))
    }
}
