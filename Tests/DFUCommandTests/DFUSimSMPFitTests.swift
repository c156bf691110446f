import Foundation
import Testing

/// `dfu upload` checks, before its first write, that the images fit the SMP server (issue 26, point 8): the slot info
/// (image command 6) where the server answers it, otherwise the image numbers its image list shows. Through
/// bluetoothd's stand-in and the simulated Zephyr/MCUboot device (`dfu-sim run --device smp…`), whose report shows
/// the slots untouched.
@Suite(.enabled(if: DFUSimRun.available)) struct DFUSimSMPFitTests {
    static let address = DFUSimSMPTests.address

    /// The slots the report lists after the run (a blank secondary is not listed).
    static func slots(_ run: DFUSimRun) -> [[String: Any]] { DFUSimSMPTests.slots(run) }

    @Test func aTwoImagePackageForAOneImageDeviceIsRefusedBeforeAnyWrite() async throws {
        let zip = MCUbootFiles.path("dfu_application.zip")
        try #require(FileManager.default.fileExists(atPath: zip), "the committed fixture \(zip) is missing")
        // `smp`: one image, no slot info (Kconfig's default for one image): the image list decides.
        let run = try await DFUSimRun.run(devices: ["smp"], ["upload", zip, "-d", Self.address])
        #expect(run.status == 65, "\(run.error)")
        #expect(run.error.contains("the device has 1 image (its image list names no image numbers, as a one-image build "
            + "writes it; it answers no slot info); the package's image 1 (2164 bytes) has no slot there; nothing was written"),
                "\(run.error)")
        #expect(!run.error.contains("erase the secondary slot"), "\(run.error)")
        #expect(Self.slots(run).map { $0["slot"] as? Int } == [0], "the secondary stays blank: \(Self.slots(run))")
    }

    @Test func image1ForAOneImageDeviceIsRefusedBeforeAnyWrite() async throws {
        let image = MCUbootFiles.path("images/ecdsa-p256.bin")
        let run = try await DFUSimRun.run(devices: ["smp"], ["upload", image, "--image", "1", "-d", Self.address, "--no-reset"])
        #expect(run.status == 65, "\(run.error)")
        #expect(run.error.contains("the package's image 1 (3664 bytes) has no slot there"), "\(run.error)")
        // Zephyr's one-image server would have put it in image 0's secondary slot (and dfu marked it for test).
        #expect(Self.slots(run).map { $0["slot"] as? Int } == [0], "\(Self.slots(run))")
    }

    @Test func aOneImageDeviceWithSlotInfoRefusesImage1NamingWhatSlotInfoLists() async throws {
        let zip = MCUbootFiles.path("dfu_application.zip")
        let run = try await DFUSimRun.run(devices: ["smp,slot_info=yes"], ["upload", zip, "-d", Self.address])
        #expect(run.status == 65, "\(run.error)")
        #expect(run.error.contains("the device has 1 image (slot info lists image 0); the package's image 1 (2164 bytes) "
            + "has no slot there"), "\(run.error)")
        #expect(Self.slots(run).map { $0["slot"] as? Int } == [0])
    }

    @Test func anImageLargerThanItsSlotIsRefusedNamingBothSizes() async throws {
        let run = try await DFUSimRun.run(devices: ["smp,slot_info=yes,slot_size=8192"],
                                          ["upload", SMPFirmware.image, "-d", Self.address])
        #expect(run.status == 65, "\(run.error)")
        let size = SMPFirmware.imageBytes.count
        #expect(run.error.contains("image 0 is \(size) bytes; the device's slot 1 of image 0 holds 8192 bytes; nothing was written"),
                "\(run.error)")
        #expect(Self.slots(run).map { $0["slot"] as? Int } == [0])
    }

    @Test func aTwoImageDeviceWithoutSlotInfoIsJudgedByItsImageListAndUpdated() async throws {
        let zip = MCUbootFiles.path("dfu_application.zip")
        // Zephyr before 3.6 (no slot info command): its image list shows image 1, so both images go.
        let run = try await DFUSimRun.run(devices: ["smp-nrf5340,slot_info=no"], ["upload", zip, "-d", Self.address])
        #expect(run.status == 0, "\(run.error)")
        let running = Self.slots(run).filter { $0["slot"] as? Int == 0 }
        #expect(Set(running.compactMap { $0["image"] as? Int }) == [0, 1])
    }
}

/// `dfu erase` (image command 5) through bluetoothd's stand-in and the simulated Zephyr/MCUboot device.
@Suite(.enabled(if: DFUSimRun.available)) struct DFUSimSMPEraseTests {
    static let address = DFUSimSMPTests.address

    @Test func eraseEmptiesTheSecondarySlotThatHoldsThePreviousImage() async throws {
        // After a test swap and confirm, slot 1 holds the old image, in use by nothing: erase empties it.
        let script = """
            "$0" upload "$1" -d \(Self.address) -q && "$0" erase -d \(Self.address) && "$0" images -d \(Self.address) --json
            """
        let run = try await DFUSimRun.run(devices: ["smp"], command: ["/bin/sh", "-c", script, TestData.dfuExecutable.path, SMPFirmware.image])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error.contains("dfu: \(Self.address) erased its default slot"), "\(run.error)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data((run.output.split(separator: "\n").last ?? "").utf8)) as? [String: Any])
        #expect((answer["slots"] as? [[String: Any]])?.map { $0["slot"] as? Int } == [0], "\(run.output)")
        #expect(DFUSimSMPTests.slots(run).map { $0["slot"] as? Int } == [0])
    }

    @Test func erasingAPendingImageIsRefusedWithAdviceDfuCanFollow() async throws {
        let script = """
            "$0" upload "$1" -d \(Self.address) -q --no-reset && "$0" erase -d \(Self.address) --image 0
            """
        let run = try await DFUSimRun.run(devices: ["smp"], command: ["/bin/sh", "-c", script, TestData.dfuExecutable.path, SMPFirmware.image])
        #expect(run.status == 1, "\(run.error)")
        #expect(run.error.contains("IMG_MGMT_ERR_NO_FREE_SLOT (9)") && run.error.contains("'dfu reset' runs it"), "\(run.error)")
        #expect(DFUSimSMPTests.slots(run).first { $0["slot"] as? Int == 1 }?["pending"] as? Bool == true, "the pending image stays")
    }

    @Test func erasingImage1OfAOneImageDeviceIsInvalidSlot() async throws {
        let run = try await DFUSimRun.run(devices: ["smp"], ["erase", "-d", Self.address, "--image", "1"])
        #expect(run.status == 1, "\(run.error)")
        #expect(run.error.contains("IMG_MGMT_ERR_INVALID_SLOT (14)"), "\(run.error)")
    }
}
