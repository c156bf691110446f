import DFUCommand
import DFUCore
import DFUSimulator
import Foundation
import Testing
import ZipArchive

/// `dfu upload` of MCUboot images to SMP (MCUmgr) servers: the protocol is chosen from the file, the file's
/// kind is checked against the device before anything is written, and the SMP options shape the ending.
@Suite struct SMPUploadCommandTests {
    static let device = SimulatedRig.firstAddress
    static let image = SMPFirmware.image

    @Test func anMCUbootImageIsUploadedTestedResetAndConfirmed() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["upload", Self.image, "-d", Self.device])
        #expect(run.code == .success, "\(run.error)")
        let target = try #require(SMPFirmware.target(rig))
        #expect(target.slots[0].primary == SMPFirmware.imageBytes)
        #expect(target.slots[0].nextBoot == .none, "confirmed once it ran")
        #expect(target.resets == 1)
        let last = try #require(run.errorLines.last)
        #expect(last.hasPrefix("\(Self.device): updated in "), "\(last)")
        #expect(last.contains("\(SMPFirmware.imageBytes.count) bytes sent"), "\(last)")
    }

    @Test func confirmWithoutResetLeavesTheImagePermanentForTheNextReset() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["upload", Self.image, "-d", Self.device, "--confirm", "--no-reset"])
        #expect(run.code == .success, "\(run.error)")
        let target = try #require(SMPFirmware.target(rig))
        #expect(target.slots[0].nextBoot == .permanent)
        #expect(target.slots[0].secondary.starts(with: SMPFirmware.imageBytes))
        #expect(target.resets == 0)
    }

    @Test func testWithoutResetMarksTheImageForOneBoot() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["upload", Self.image, "-d", Self.device, "--test", "--no-reset"])
        #expect(run.code == .success, "\(run.error)")
        let target = try #require(SMPFirmware.target(rig))
        #expect(target.slots[0].nextBoot == .test)
        #expect(target.resets == 0)
    }

    @Test func confirmAtOnceResetsAndTheImageStays() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["upload", Self.image, "-d", Self.device, "--confirm"])
        #expect(run.code == .success, "\(run.error)")
        let target = try #require(SMPFirmware.target(rig))
        #expect(target.slots[0].primary == SMPFirmware.imageBytes)
        #expect(target.slots[0].nextBoot == .none)
        #expect(target.resets == 1)
    }

    @Test func windowAndChunkOverridesShapeTheRequests() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["upload", Self.image, "-d", Self.device, "--smp-window", "1", "--smp-chunk", "512", "-vv"])
        #expect(run.code == .success, "\(run.error)")
        #expect(run.error.contains("frames of at most 512 bytes, 1 in flight"), "\(run.error)")
        // Every upload request frame fits 512 bytes: the writes of one frame never add up to more.
        let frames = rig.writes(to: .smp)
        #expect(!frames.isEmpty)
        #expect(frames.allSatisfy { $0.count <= 512 })
    }

    @Test func theNRF5340PackageSendsBothCoresImagesAtOneReset() async throws {
        let zip = MCUbootFiles.path("dfu_application.zip")
        try #require(FileManager.default.fileExists(atPath: zip), "the committed fixture \(zip) is missing")
        let rig = SimulatedRig([Self.device: SMPFirmware.nrf5340()])
        let run = await rig.dfu(["upload", zip, "-d", Self.device])
        #expect(run.code == .success, "\(run.error)")
        let target = try #require(SMPFirmware.target(rig))
        let entries = try ZipContents.entries(zip)
        let app = try #require(entries["app_update.bin"])
        let net = try #require(entries["net_core_app_update.bin"])
        #expect(target.slots[0].primary == app)
        #expect(target.slots[1].primary == net)
        #expect(target.resets == 1)
    }

    // MARK: - Options of the other kind, before any device

    @Test(arguments: [
        (["--prn", "4"], "option --prn is for nRF5 packages; IMAGE is an MCUboot image (sent over SMP)"),
        (["--scope", "application"], "option --scope is for nRF5 packages; IMAGE is an MCUboot image (sent over SMP)"),
        (["--no-alt-name"], "option --no-alt-name is for nRF5 packages; IMAGE is an MCUboot image (sent over SMP)"),
        (["--test", "--confirm"], "options --test and --confirm exclude each other"),
        (["--smp-window", "0"], "option --smp-window: '0' is not a whole number from 1 to 64"),
        (["--smp-chunk", "32"], "option --smp-chunk: '32' is not a whole number from 116 to 65535"),
        (["--image", "16"], "option --image: '16' is not a whole number from 0 to 15"),
        (["--passkey", "1000000"], "option --passkey: '1000000' is not a whole number from 0 to 999999"),
    ])
    func badOptionsForAnMCUbootImageAreUsageErrors(_ extra: [String], _ message: String) async {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["upload", Self.image, "-d", Self.device] + extra)
        #expect(run.code == .usage)
        #expect(run.errorLines == ["dfu: \(message.replacingOccurrences(of: "IMAGE", with: Self.image)) (see 'dfu upload --help')"])
        #expect(rig.writes(to: .smp).isEmpty)
    }

    @Test(arguments: [["--confirm"], ["--test"], ["--no-reset"], ["--image", "1"], ["--smp-window", "2"], ["--smp-chunk", "256"]])
    func smpOptionsForAnNRF5PackageAreUsageErrors(_ extra: [String]) async {
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await rig.dfu(["upload", UploadCommandTests.app, "-d", Self.device] + extra)
        #expect(run.code == .usage)
        #expect(run.errorLines == [
            "dfu: option \(extra[0]) is for MCUboot images (SMP); \(UploadCommandTests.app) is an nRF5 package (see 'dfu upload --help')",
        ])
        #expect(rig.writes(to: .secureControlPoint).isEmpty)
    }

    @Test func imageIsRefusedForAPackageWhoseManifestNumbersItsImages() async throws {
        let zip = MCUbootFiles.path("dfu_application.zip")
        try #require(FileManager.default.fileExists(atPath: zip), "the committed fixture \(zip) is missing")
        let run = await RecordedRun.dfu("upload", zip, "-d", Self.device, "--image", "1")
        #expect(run.code == .usage)
        #expect(run.error.contains("option --image is for a lone MCUboot image"), "\(run.error)")
    }

    @Test func aLoneImageGoesToTheImageNumberGiven() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.nrf5340()])
        let run = await rig.dfu(["upload", Self.image, "-d", Self.device, "--image", "1"])
        #expect(run.code == .success, "\(run.error)")
        let target = try #require(SMPFirmware.target(rig))
        #expect(target.slots[1].primary == SMPFirmware.imageBytes)
        #expect(target.slots[0].primary != SMPFirmware.imageBytes)
    }

    // MARK: - The file's kind against the device

    @Test func anMCUbootImageForAnNRF5DeviceIsRefusedBeforeAnyWrite() async throws {
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await rig.dfu(["upload", Self.image, "-d", Self.device])
        #expect(run.code == .badPackage)
        #expect(run.errorLines.first { $0.contains("the firmware does not fit the device") }?
            .contains("is an nRF5 application with a buttonless DFU service, not an SMP (MCUmgr) server; an MCUboot image goes only to an SMP server") == true,
            "\(run.error)")
        #expect(rig.writes(to: .buttonlessWithoutBonds).isEmpty)
        #expect(rig.writes(to: .secureControlPoint).isEmpty)
    }

    @Test func anNRF5PackageForAnSMPServerIsRefusedBeforeAnyWrite() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["upload", UploadCommandTests.app, "-d", Self.device])
        #expect(run.code == .badPackage)
        #expect(run.error.contains("the firmware does not fit the device: the device is an SMP (MCUmgr) server, which takes MCUboot images, not an nRF5 package"),
                "\(run.error)")
        #expect(rig.writes(to: .smp).isEmpty)
        #expect(SMPFirmware.target(rig)?.resets == 0)
    }

    @Test func aMixedFleetUpdatesTheSMPServersAndNamesTheOthers() async throws {
        let smp1 = "C0:FF:EE:00:00:10", nrf5 = "C0:FF:EE:00:00:20", smp2 = "C0:FF:EE:00:00:30"
        let rig = SimulatedRig([smp1: SMPFirmware.device(smp1), nrf5: SimulatedRig.secureDevice(nrf5), smp2: SMPFirmware.device(smp2)])
        let list = SMPFirmware.folder.appendingPathComponent("fleet-\(UUID().uuidString).txt")
        try "\(smp1)\n\(nrf5)   # an nRF5 device\n\(smp2)\n".write(to: list, atomically: true, encoding: .utf8)
        let run = await rig.dfu(["upload", Self.image, "--devices-from", list.path, "--json"])
        #expect(run.code == .badPackage)
        #expect(SMPFirmware.target(rig, smp1)?.slots[0].primary == SMPFirmware.imageBytes)
        #expect(SMPFirmware.target(rig, smp2)?.slots[0].primary == SMPFirmware.imageBytes)
        #expect(rig.writes(nrf5, to: .secureControlPoint).isEmpty)
        let events = try run.output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let summary = try #require(events.last)
        #expect(summary["event"] as? String == "summary")
        #expect(summary["updated"] as? Int == 2)
        #expect(summary["failed"] as? [String] == [nrf5])
        #expect(summary["exit_code"] as? Int == 65)
    }

    @Test func anNRF5PackageAndAnMCUbootImageUpdateAMixedFleetEachDeviceWithTheFileItTakes() async throws {
        let smp1 = "C0:FF:EE:00:00:10", nrf5 = "C0:FF:EE:00:00:20", smp2 = "C0:FF:EE:00:00:30"
        let rig = SimulatedRig([smp1: SMPFirmware.device(smp1), nrf5: SimulatedRig.secureDevice(nrf5), smp2: SMPFirmware.device(smp2)])
        let list = SMPFirmware.folder.appendingPathComponent("fleet-\(UUID().uuidString).txt")
        try "\(smp1)\n\(nrf5)\n\(smp2)\n".write(to: list, atomically: true, encoding: .utf8)
        let run = await rig.dfu(["upload", UploadCommandTests.app, Self.image, "--devices-from", list.path, "--prn", "4", "--confirm"])
        #expect(run.code == .success, "\(run.error)")
        #expect(SMPFirmware.target(rig, smp1)?.slots[0].primary == SMPFirmware.imageBytes)
        #expect(SMPFirmware.target(rig, smp2)?.slots[0].primary == SMPFirmware.imageBytes)
        #expect(rig.transport(nrf5)?.peripheral().storage.application?.count == 4096)
        #expect(run.errorLines.last == "3 devices: 3 updated, 0 not updated")
        // Nothing of the nRF5 package reached an SMP server, nor SMP requests the nRF5 device.
        #expect(rig.writes(smp1, to: .secureControlPoint).isEmpty && rig.writes(nrf5, to: .smp).isEmpty)
    }

    @Test func twoFilesOfTheSameKindAreAUsageError() async {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["upload", Self.image, Self.image, "-d", Self.device])
        #expect(run.code == .usage)
        #expect(run.errorLines.count == 1)
        #expect(run.error.contains("two files of the same kind"), "\(run.error)")
        #expect(rig.writes(to: .smp).isEmpty)
    }

    // MARK: - JSON Lines

    @Test func jsonLinesHaveTheSameEventsForAnSMPUpload() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["upload", Self.image, "-d", Self.device, "--json"])
        #expect(run.code == .success, "\(run.error)")
        let events = try run.output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let states = events.filter { $0["event"] as? String == "state" }.compactMap { $0["state"] as? String }
        #expect(states.first == "connecting")
        #expect(states.contains("uploading"))
        #expect(states.last == "completed")
        let progress = events.filter { $0["event"] as? String == "progress" }.compactMap { $0["bytes"] as? Int }
        #expect(progress == progress.sorted(), "progress never goes back")
        #expect(progress.last == SMPFirmware.imageBytes.count)
        let done = try #require(events.first { $0["event"] as? String == "done" })
        #expect(done["result"] as? String == "updated")
        #expect(done["parts_sent"] as? [String] == ["application"])
        #expect(events.last?["event"] as? String == "summary")
    }

    // MARK: - Ctrl-C, then the same command again

    @Test func anInterruptedUploadStopsCleanlyAndTheSameCommandResumesFromTheDevicesOffset() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let arguments = ["upload", Self.image, "-d", Self.device]
        let first = await rig.dfu(arguments, interruptAfterPacketBytes: 25_000)
        #expect(first.code == .interrupted)
        let last = try #require(first.errorLines.last)
        #expect(last.hasPrefix("dfu: \(Self.device): interrupted while uploading at "), "\(last)")
        #expect(last.hasSuffix("SMP has no abort: the device keeps what it received and runs its current firmware; "
                               + "the same command again resumes from the device's offset"), "\(last)")
        let target = try #require(SMPFirmware.target(rig))
        #expect(target.resets == 0)
        #expect(target.slots[0].primary != SMPFirmware.imageBytes)
        let sentBefore = SMPFirmware.smpBytes(rig)

        let second = await rig.dfu(arguments)
        #expect(second.code == .success, "\(second.error)")
        #expect(SMPFirmware.target(rig)?.slots[0].primary == SMPFirmware.imageBytes)
        // The second run sent the rest, not the whole image again.
        let sentAfter = SMPFirmware.smpBytes(rig) - sentBefore
        #expect(sentAfter < SMPFirmware.imageBytes.count - 10_000, "the second run sent \(sentAfter) bytes")
    }
}

/// The members of a zip, read with the tool's own reader.
enum ZipContents {
    static func entries(_ path: String) throws -> [String: [UInt8]] {
        try ZipArchive.readAll(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }
}
