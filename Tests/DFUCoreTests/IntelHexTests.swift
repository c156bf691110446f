import DFUCore
import Testing
import DFUFormats

@Suite struct IntelHexTests {
    static func parse(_ lines: [String], name: String = "fw.hex") throws(PackageError) -> IntelHex {
        try IntelHex(text: Array(lines.joined(separator: "\r\n").utf8), name: name)
    }

    static let endOfFile = ":00000001FF"  // count 0, address 0000, type 01 (EOF), checksum FF

    @Test func dataRecordsBecomeOneImage() throws {
        let hex = try Self.parse([
            ":0400000001020304F2",  // 4 bytes at 0x0000: 01 02 03 04, checksum F2
            Self.endOfFile,
        ])
        #expect(hex.segments == [IntelHex.Segment(address: 0, bytes: [1, 2, 3, 4])])
        #expect(try hex.image(for: .application) == [1, 2, 3, 4])
    }

    @Test func extendedLinearAddressMovesTheBase() throws {
        let hex = try Self.parse([
            ":020000040001F9",  // type 04: upper 16 bits = 0x0001 → base 0x10000
            ":02001000AABB89",  // 2 bytes at 0x0010 → 0x10010: AA BB
            Self.endOfFile,
        ])
        #expect(hex.segments == [IntelHex.Segment(address: 0x10010, bytes: [0xAA, 0xBB])])
    }

    @Test func extendedSegmentAddressMovesTheBase() throws {
        let hex = try Self.parse([
            ":020000021000EC",  // type 02: segment 0x1000 → base 0x1000 × 16 = 0x10000
            ":02000400CCDD51",  // 2 bytes at 0x0004 → 0x10004: CC DD
            Self.endOfFile,
        ])
        #expect(hex.segments == [IntelHex.Segment(address: 0x10004, bytes: [0xCC, 0xDD])])
    }

    @Test func startAddressRecordsAreKept() throws {
        let linear = try Self.parse([
            ":04000005000180C1B5",  // type 05: start linear address 0x000180C1
            Self.endOfFile,
        ])
        #expect(linear.startAddress == 0x0001_80C1)
        let segment = try Self.parse([
            ":04000003F00083790D",  // type 03: CS = F000, IP = 8379
            Self.endOfFile,
        ])
        #expect(segment.startAddress == 0xF000_8379)
    }

    @Test func gapsAreFilledWith0xFF() throws {
        let hex = try Self.parse([
            ":0410000001020304E2",  // 4 bytes at 0x1000
            ":0410080005060708CA",  // 4 bytes at 0x1008, leaving 0x1004–0x1007 empty
            Self.endOfFile,
        ])
        #expect(try hex.image(for: .application) == [1, 2, 3, 4, 0xFF, 0xFF, 0xFF, 0xFF, 5, 6, 7, 8])
    }

    @Test func softdeviceImagesLeaveTheMBROut() throws {
        let hex = try Self.parse([
            ":080FFC000102030405060708C9",  // 8 bytes at 0x0FFC: 4 in the MBR, 4 from 0x1000
            Self.endOfFile,
        ])
        #expect(try hex.image(for: .softdevice) == [5, 6, 7, 8])
        #expect(try hex.image(for: .softdeviceBootloader) == [5, 6, 7, 8])
        #expect(try hex.image(for: .application) == [1, 2, 3, 4, 5, 6, 7, 8])
    }

    @Test(arguments: PartKind.allCases)
    func uicrIsAlwaysLeftOut(_ kind: PartKind) throws {
        let hex = try Self.parse([
            ":0410000001020304E2",  // 4 bytes at 0x1000
            ":020000041000EA",  // type 04: base 0x10000000
            ":041014000080070051",  // 4 bytes at 0x10001014 (UICR, bootloader address)
            Self.endOfFile,
        ])
        #expect(try hex.image(for: kind) == [1, 2, 3, 4])
    }

    @Test func dataFarApartIsRefusedInsteadOfFillingGigabytes() throws {
        let hex = try Self.parse([
            ":0400000001020304F2",  // 4 bytes at 0x0000
            ":02000004F0000A",  // type 04: base 0xF0000000
            ":0400000001020304F2",  // 4 bytes at 0xF0000000
            Self.endOfFile,
        ])
        #expect(throws: PackageError.imageTooLarge(name: "fw.hex", size: 0xF000_0004, limit: 16 << 20)) {
            _ = try hex.image(for: .application)
        }
        #expect(
            PackageError.imageTooLarge(name: "fw.hex", size: 0xF000_0004, limit: 16 << 20).description
                == "fw.hex: the data spans 4026531844 bytes, more than the 16777216 an image may have")
    }

    struct BadHex: CustomTestStringConvertible, Sendable {
        let testDescription: String
        let lines: [String]
        let line: Int
        let cause: String
    }

    @Test(arguments: [
        BadHex(testDescription: "bad checksum", lines: [":0400000001020304F3", endOfFile], line: 1, cause: "checksum mismatch"),
        BadHex(testDescription: "no end record", lines: [":0400000001020304F2"], line: 1, cause: "the file has no end-of-file record"),
        BadHex(testDescription: "no colon", lines: ["0400000001020304F2", endOfFile], line: 1, cause: "the record does not start with ':'"),
        BadHex(testDescription: "not hex", lines: [":04000000010203G4F2", endOfFile], line: 1, cause: "the record is not an even run of hex digits"),
        BadHex(testDescription: "odd digits", lines: [":0400000001020304F", endOfFile], line: 1, cause: "the record is not an even run of hex digits"),
        BadHex(testDescription: "short", lines: [":0000", endOfFile], line: 1, cause: "the record is shorter than 5 bytes"),
        BadHex(testDescription: "count mismatch", lines: [":0500000001020304F1", endOfFile], line: 1, cause: "the record declares 5 data bytes but has 4"),
        BadHex(testDescription: "unknown type", lines: [":00000006FA", endOfFile], line: 1, cause: "unknown record type 6"),
        BadHex(
            testDescription: "overlap", lines: [":0410000001020304E2", ":021002000909DA", endOfFile], line: 2,
            cause: "data at address 0x1002 is given twice"),
    ])
    func malformedFilesNameTheLineAndCause(_ bad: BadHex) {
        #expect(throws: PackageError.invalidIntelHex(name: "fw.hex", line: bad.line, cause: bad.cause)) {
            _ = try Self.parse(bad.lines)
        }
        let message = PackageError.invalidIntelHex(name: "fw.hex", line: bad.line, cause: bad.cause).description
        #expect(message == "fw.hex: line \(bad.line): \(bad.cause)")
    }

    struct OraclePair: CustomTestStringConvertible, Sendable {
        let name: String
        let kind: PartKind
        var testDescription: String { name }
    }

    /// HEX files with the `.bin` Nordic's iOS library expects from them.
    @Test(
        .enabled(if: SharedData.hasNordicSamples, "needs ../shared/nordic-samples"),
        arguments: [
            OraclePair(name: "ble_app_hrm_dfu_s110_v8_0_0_sdk_v8_0", kind: .application),
            OraclePair(name: "blinky_s110_v7_0_0_sdk_v7_1", kind: .application),
            OraclePair(name: "s110_nrf51822_6.2.1_softdevice", kind: .softdevice),
            OraclePair(name: "sdk_15_2_bootloader", kind: .bootloader),
        ])
    func convertsLikeTheOracle(_ pair: OraclePair) throws {
        let hex = try IntelHex(text: SharedData.sample("ios/TestFirmwares/\(pair.name).hex"), name: pair.name + ".hex")
        let expected = try SharedData.sample("ios/TestFirmwares/\(pair.name).bin")
        #expect(try hex.image(for: pair.kind) == expected)
    }

    /// The SoftDevice+bootloader HEX holds the bootloader far above the SoftDevice. The oracle
    /// stops at the gap (SoftDevice only); we keep both, so the oracle is our image's prefix.
    @Test(.enabled(if: SharedData.hasNordicSamples, "needs ../shared/nordic-samples"))
    func combinedSoftdeviceBootloaderHexStartsWithTheOracleSoftdevice() throws {
        let hex = try IntelHex(text: SharedData.sample("ios/TestFirmwares/nrf51422_sdk_5.2_sd_bl.hex"), name: "sd_bl.hex")
        let expected = try SharedData.sample("ios/TestFirmwares/nrf51422_sdk_5.2_sd_bl.bin")
        let image = try hex.image(for: .softdeviceBootloader)
        #expect(image.count > expected.count)
        #expect(Array(image.prefix(expected.count)) == expected)
    }
}
