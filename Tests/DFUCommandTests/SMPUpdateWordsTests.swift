import DFUCommand
import DFUCore
import DFUSimulator
import Foundation
import Testing
import ZipArchive

/// What `dfu upload` says of an SMP update (issue 26 point 5): the phases are named for what happens, each
/// image of a multi-image zip is a part, and the result line, the interrupt line and the `--json` `done` event say
/// where each image stands and which command takes the device on. Through bluetoothd's stand-in (`dfu-sim run`).
@Suite(.enabled(if: DFUSimRun.available)) struct DFUSimSMPWordsTests {
    static let address = "C0:FF:EE:00:00:10"

    static func lines(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { !$0.hasPrefix("dbus-daemon[") }
    }

    static func events(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func testWithoutResetEndsUploadedMarkedForTestAndNamesTheReset() async throws {
        let run = try await DFUSimRun.run(devices: ["smp"], ["upload", SMPFirmware.image, "-d", Self.address, "--test", "--no-reset"])
        #expect(run.status == 0, "\(run.error)")
        let last = String(Self.lines(run.error).last ?? "")
        #expect(last.hasPrefix("\(Self.address): uploaded in "), "\(last)")
        #expect(last.contains(" bytes sent (image 0); image 0: marked for test, not running yet: it runs after the next reset "
                              + "and is reverted at the reset after that unless confirmed; next: dfu reset -d \(Self.address)"), "\(last)")
        #expect(!last.contains("updated"), "\(last)")
    }

    @Test func testWithoutResetGivesEachImagesStateAndTheNextCommandInJSON() async throws {
        let run = try await DFUSimRun.run(devices: ["smp"],
                                          ["upload", SMPFirmware.image, "-d", Self.address, "--test", "--no-reset", "--json"])
        #expect(run.status == 0, "\(run.error)")
        let done = try #require(try Self.events(run.output).first { $0["event"] as? String == "done" })
        let images = try #require(done["images"] as? [[String: Any]])
        #expect(images.count == 1)
        #expect(images.first?["image"] as? Int == 0 && images.first?["state"] as? String == "marked_test", "\(images)")
        #expect(done["next"] as? String == "dfu reset -d \(Self.address)")
        #expect(done["result"] as? String == "uploaded", "as the result line says: nothing swapped yet")
        #expect(done["parts_sent"] as? [String] == ["application"])
        // The summary counts it as uploaded, not updated (and not failed).
        let summary = try #require(try Self.events(run.output).last)
        #expect(summary["event"] as? String == "summary")
        #expect(summary["updated"] as? Int == 0 && summary["uploaded"] as? Int == 1, "\(summary)")
        #expect(summary["failed"] as? [String] == [])
    }

    @Test func theNRF5340ZipCountsEachImageAsAPartAndNamesBoth() async throws {
        let zip = MCUbootFiles.path("dfu_application.zip")
        try #require(FileManager.default.fileExists(atPath: zip), "the committed fixture \(zip) is missing")
        let entries = try ZipContents.entries(zip)
        let app = try #require(entries["app_update.bin"])
        let net = try #require(entries["net_core_app_update.bin"])
        let run = try await DFUSimRun.run(devices: ["smp-nrf5340"], ["upload", zip, "-d", Self.address, "--json"])
        #expect(run.status == 0, "\(run.error)")
        let events = try Self.events(run.output)
        let states = events.filter { $0["event"] as? String == "state" }
        #expect(states.allSatisfy { $0["parts"] as? Int == 2 }, "\(states)")
        let uploading = states.filter { $0["state"] as? String == "uploading" }.compactMap { $0["part"] as? Int }
        #expect(uploading == [1, 2])
        let progress = events.filter { $0["event"] as? String == "progress" }
        let totals = Dictionary(progress.compactMap { event in
            (event["part"] as? Int).flatMap { part in (event["total"] as? Int).map { (part, $0) } }
        }, uniquingKeysWith: { first, _ in first })
        #expect(totals == [1: app.count, 2: net.count], "each part is one image's bytes")
        let done = try #require(events.first { $0["event"] as? String == "done" })
        #expect(done["parts_sent"] as? [String] == ["application", "image_1"])
        let images = (done["images"] as? [[String: Any]] ?? []).compactMap { image in
            (image["image"] as? Int).flatMap { number in (image["state"] as? String).map { "\(number) \($0)" } }
        }
        #expect(images == ["0 confirmed", "1 confirmed"])
        #expect(done["next"] == nil, "nothing left to do")
    }

    @Test func theNRF5340ZipShowsPart1Of2Then2Of2AndEndsUpdatedWithBothImages() async throws {
        let zip = MCUbootFiles.path("dfu_application.zip")
        try #require(FileManager.default.fileExists(atPath: zip), "the committed fixture \(zip) is missing")
        let run = try await DFUSimRun.run(devices: ["smp-nrf5340"], ["upload", zip, "-d", Self.address])
        #expect(run.status == 0, "\(run.error)")
        let lines = Self.lines(run.error)
        #expect(lines.contains("\(Self.address): part 1/2 uploading"), "\(run.error)")
        #expect(lines.contains("\(Self.address): part 2/2 uploading"), "\(run.error)")
        let last = String(lines.last ?? "")
        #expect(last.hasPrefix("\(Self.address): updated in "), "\(last)")
        #expect(last.hasSuffix(" bytes sent (image 0, image 1); images 0, 1: running, confirmed"), "\(last)")
    }

    @Test func theSMPPhasesAreNamedForWhatHappens() async throws {
        let run = try await DFUSimRun.run(devices: ["smp"], ["upload", SMPFirmware.image, "-d", Self.address, "-v"])
        #expect(run.status == 0, "\(run.error)")
        let prefix = "\(Self.address): part 1/1 "
        let phases = Self.lines(run.error).filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
        #expect(phases == ["connecting", "starting", "uploading", "marking for test", "resetting",
                           "waiting for the device to come back", "checking the images", "confirming", "checking the images",
                           "completed"], "\(run.error)")
        let last = String(Self.lines(run.error).last ?? "")
        #expect(last.hasPrefix("\(Self.address): updated in ") && last.hasSuffix("(image 0); image 0: running, confirmed"), "\(last)")
    }
}

/// Ctrl-C at the moments an SMP update changes the device beyond its upload bytes, in-process: the interrupt
/// line and the `done` event say where the image stands and what to run next, not that nothing changed.
@Suite struct SMPInterruptWordsTests {
    static let device = SimulatedRig.firstAddress

    @Test func confirmWithoutResetEndsUploadedAndConfirmedForTheNextReset() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["upload", SMPFirmware.image, "-d", Self.device, "--confirm", "--no-reset"])
        #expect(run.code == .success, "\(run.error)")
        let last = String(run.errorLines.last ?? "")
        #expect(last.hasPrefix("\(Self.device): uploaded in "), "\(last)")
        #expect(last.hasSuffix("(image 0); image 0: confirmed, not running yet: it runs from the next reset on; "
                               + "next: dfu reset -d \(Self.device)"), "\(last)")
    }

    @Test func anInterruptAsTheDeviceComesBackFromTheTestResetSaysItRunsOnTestAndNamesConfirm() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        // The second connection is the one after the reset into the image marked for test.
        let run = await rig.dfu(["upload", SMPFirmware.image, "-d", Self.device], interruptWhen: .connection(2))
        #expect(run.code == .interrupted, "\(run.error)")
        let target = try #require(SMPFirmware.target(rig))
        #expect(target.slots[0].primary == SMPFirmware.imageBytes, "the new image runs")
        #expect(target.slots[0].nextBoot == .revert, "unconfirmed: MCUboot reverts it at the next reset")
        let last = String(run.errorLines.last ?? "")
        #expect(last == "dfu: \(Self.device): interrupted while waiting for the device to come back; image 0: marked for test "
                + "and the device was reset to swap it in: unless MCUboot refused it, it runs in test mode and is reverted at "
                + "the next reset unless confirmed; next: dfu confirm -d \(Self.device)", "\(last)")
        // The command named keeps the image.
        let confirm = await rig.dfu(["confirm", "-d", Self.device])
        #expect(confirm.code == .success, "\(confirm.error)")
        #expect(SMPFirmware.target(rig)?.slots[0].nextBoot == SimulatedMCUbootSlots.NextBoot.none)
    }

    @Test func anInterruptAfterTheTestResetGivesTheImagesStateAndConfirmInJSON() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["upload", SMPFirmware.image, "-d", Self.device, "--json"], interruptWhen: .connection(2))
        #expect(run.code == .interrupted, "\(run.error)")
        let done = try #require(try run.output.split(separator: "\n").compactMap { line in
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }.first { $0["event"] as? String == "done" })
        #expect(done["result"] as? String == "interrupted")
        let images = done["images"] as? [[String: Any]] ?? []
        #expect(images.count == 1 && images.first?["state"] as? String == "reset_test", "\(done)")
        #expect(done["next"] as? String == "dfu confirm -d \(Self.device)")
    }

    @Test func anInterruptRightAfterTheResetRequestSaysTheResetMayHaveHappened() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        // OS group (0), reset (5): zephyr os_mgmt.c.
        let run = await rig.dfu(["upload", SMPFirmware.image, "-d", Self.device], interruptWhen: .smpRequest(group: 0, command: 5))
        #expect(run.code == .interrupted, "\(run.error)")
        let last = String(run.errorLines.last ?? "")
        #expect(last.hasPrefix("dfu: \(Self.device): interrupted while resetting; the device was asked to reset and may not have "
                               + "done so (dfu images -d \(Self.device) shows which image runs); if it did, image 0: marked for test"),
                "\(last)")
        #expect(last.hasSuffix("; next: dfu confirm -d \(Self.device)"), "\(last)")
        #expect(!last.contains("not changed"), "\(last)")
    }

    @Test func anInterruptMidUploadStillSaysTheSameCommandResumes() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["upload", SMPFirmware.image, "-d", Self.device], interruptAfterPacketBytes: 25_000)
        #expect(run.code == .interrupted)
        let last = String(run.errorLines.last ?? "")
        #expect(last.hasSuffix("the same command again resumes from the device's offset"), "\(last)")
    }
}
