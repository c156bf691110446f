@testable import DFUCommand
import DFUCore
import DFUSimulator
import Foundation
import Testing

/// Issue 26 point 9: SMP error sentences continue lower-case after their semicolon, and say what the code means.
@Suite struct SMPErrorWordsTests {
    static let device = SimulatedRig.firstAddress

    @Test func aConfirmWhileATestIsPendingIsToldToResetNotToUploadAnother() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        _ = await rig.dfu(["upload", SMPFirmware.image, "-d", Self.device, "--no-reset"])
        let run = await rig.dfu(["confirm", "-d", Self.device, "--hash", SMPFirmware.imageHashHex])
        #expect(run.code == .deviceRejected)
        #expect(run.error.hasSuffix("; reset the device to run (or drop) the pending image, then retry\n"), "\(run.error)")
        #expect(!run.error.contains("uploading another"))
    }

    @Test func anUnknownHashIsNamedAsNoImageWithThatHash() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["confirm", "-d", Self.device, "--hash", String(repeating: "ab", count: 32)])
        #expect(run.code == .deviceRejected)
        #expect(run.error.contains("IMG_MGMT_ERR_HASH_NOT_FOUND (8): no image on the device has the hash given; the image is not"),
                "\(run.error)")
        #expect(!run.error.contains("no hash TLV"))
    }

    @Test func adviceContinuesTheSentenceAfterItsSemicolon() {
        #expect(SMPError.image(.noFreeSlot).adviceClause.hasPrefix("the slot the image goes to is in use"))
        #expect(SMPError.image(.noFreeSlot).adviceClause.hasSuffix("'dfu images' shows which; then retry"))
        #expect(SMPError.management(.versionTooNew, reason: nil).adviceClause == "the device only speaks SMP version 1; use version 1")
        #expect(SMPError.management(.versionTooOld, reason: nil).adviceClause.hasPrefix("the device refuses"))
    }
}
