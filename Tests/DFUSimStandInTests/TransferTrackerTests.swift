import DFUCrypto
@testable import DFUSimStandIn
import Testing

/// Counting executed objects and checksum mismatches from both sides of a Secure transfer.
@Suite struct TransferTrackerTests {
    /// `60 03 01` + offset (u32 LE) + CRC-32 (u32 LE).
    static func checksumResponse(offset: Int, crc: UInt32) -> [UInt8] {
        [0x60, 0x03, 0x01] + SecureDFUByHand.uint32(offset) + SecureDFUByHand.uint32(Int(crc))
    }

    @Test func aMatchingChecksumIsNoFindingAndExecuteIsCounted() {
        var tracker = TransferTracker()
        tracker.request([0x01, 0x02, 0x04, 0x00, 0x00, 0x00])  // Create data, 4 bytes
        tracker.packet([1, 2, 3, 4])
        #expect(tracker.response(Self.checksumResponse(offset: 4, crc: CRC32.checksum([1, 2, 3, 4]))) == nil)
        #expect(tracker.response([0x60, 0x04, 0x01]) == .executed)
    }

    @Test func aChecksumOfOtherBytesIsAMismatch() {
        var tracker = TransferTracker()
        tracker.request([0x01, 0x02, 0x04, 0x00, 0x00, 0x00])
        tracker.packet([1, 2, 3, 4])
        #expect(
            tracker.response(Self.checksumResponse(offset: 4, crc: CRC32.checksum([0xFE, 2, 3, 4])))
                == .checksumMismatch)
        // Failed executes are not counted.
        #expect(tracker.response([0x60, 0x04, 0x05]) == nil)
    }

    @Test func aResumeFromUnknownDataIsNotJudged() {
        var tracker = TransferTracker()
        tracker.request([0x06, 0x02])  // Select data
        // 60 06 01, max 4096, offset 8192, CRC 0x12345678: a transfer begun before the tracker saw it.
        #expect(
            tracker.response([0x60, 0x06, 0x01, 0x00, 0x10, 0, 0, 0x00, 0x20, 0, 0, 0x78, 0x56, 0x34, 0x12]) == nil)
        tracker.packet([9, 9])
        #expect(tracker.response(Self.checksumResponse(offset: 8194, crc: 0xDEADBEEF)) == nil)
    }
}
