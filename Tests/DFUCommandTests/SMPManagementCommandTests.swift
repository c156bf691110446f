import DFUCommand
import DFUCore
import DFUSimulator
import Foundation
import Testing
import DFUFormats

/// `dfu images`, `dfu confirm` and `dfu reset` against simulated Zephyr/MCUboot devices, and `dfu scan`'s
/// mode for them.
@Suite struct SMPManagementCommandTests {
    static let device = SimulatedRig.firstAddress

    @Test func imagesListsTheRunningImageWithItsHash() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["images", "-d", Self.device])
        #expect(run.code == .success, "\(run.error)")
        let target = try #require(SMPFirmware.target(rig))
        let hash = try #require(target.slots[0].image(inSlot: 0)?.imageHash)
        let hex = hash.map { String($0 >> 4, radix: 16) + String($0 & 0x0F, radix: 16) }.joined()
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("IMAGE  SLOT  VERSION") == true)
        // image 0, slot 0, the initial version 1.0.0, running and confirmed.
        #expect(lines.last?.hasPrefix("0      0     1.0.0+0           active, confirmed") == true, "\(run.output)")
        #expect(lines.last?.hasSuffix(hex) == true)
        #expect(target.resets == 0)
    }

    @Test func imagesJSONHasOneEntryPerOccupiedSlot() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        _ = await rig.dfu(["upload", SMPFirmware.image, "-d", Self.device, "--no-reset"])
        let run = await rig.dfu(["images", "-d", Self.device, "--json"])
        #expect(run.code == .success, "\(run.error)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        #expect(answer["device"] as? String == Self.device)
        let slots = try #require(answer["slots"] as? [[String: Any]])
        #expect(slots.count == 2)
        #expect(Set(slots[0].keys) == ["image", "slot", "version", "hash", "active", "pending", "confirmed", "permanent", "bootable"])
        #expect(slots[0]["slot"] as? Int == 0 && slots[0]["active"] as? Bool == true)
        // The uploaded image waits in the secondary slot, marked for test.
        #expect(slots[1]["slot"] as? Int == 1)
        #expect(slots[1]["version"] as? String == "2.0.0+0")
        #expect(slots[1]["pending"] as? Bool == true && slots[1]["permanent"] as? Bool == false)
        #expect(slots[1]["hash"] as? String == SMPFirmware.imageHashHex)
    }

    @Test func uploadWithoutResetThenResetThenConfirmKeepsTheNewImage() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let upload = await rig.dfu(["upload", SMPFirmware.image, "-d", Self.device, "--no-reset"])
        #expect(upload.code == .success, "\(upload.error)")
        let reset = await rig.dfu(["reset", "-d", Self.device])
        #expect(reset.code == .success, "\(reset.error)")
        #expect(reset.errorLines == ["dfu: \(Self.device) was reset"])
        let target = try #require(SMPFirmware.target(rig))
        #expect(target.resets == 1)
        #expect(target.slots[0].primary == SMPFirmware.imageBytes)
        #expect(target.slots[0].nextBoot == .revert, "running under test until confirmed")

        let confirm = await rig.dfu(["confirm", "-d", Self.device])
        #expect(confirm.code == .success, "\(confirm.error)")
        #expect(SMPFirmware.target(rig)?.slots[0].nextBoot == SimulatedMCUbootSlots.NextBoot.none)
        let running = confirm.output.split(separator: "\n").first { $0.hasPrefix("0      0 ") }
        #expect(running?.contains("2.0.0") == true && running?.contains("active, confirmed") == true, "\(confirm.output)")
    }

    @Test func confirmByHashKeepsTheImageRunningUnderTest() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        _ = await rig.dfu(["upload", SMPFirmware.image, "-d", Self.device, "--no-reset"])
        _ = await rig.dfu(["reset", "-d", Self.device])
        #expect(SMPFirmware.target(rig)?.slots[0].nextBoot == .revert)
        let run = await rig.dfu(["confirm", "-d", Self.device, "--hash", SMPFirmware.imageHashHex.uppercased(), "--json"])
        #expect(run.code == .success, "\(run.error)")
        #expect(SMPFirmware.target(rig)?.slots[0].nextBoot == SimulatedMCUbootSlots.NextBoot.none)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let slots = try #require(answer["slots"] as? [[String: Any]])
        let running = try #require(slots.first { $0["slot"] as? Int == 0 })
        #expect(running["hash"] as? String == SMPFirmware.imageHashHex)
        #expect(running["confirmed"] as? Bool == true && running["active"] as? Bool == true)
    }

    @Test func confirmWhileAnImageIsPendingIsTheDevicesRefusal() async throws {
        // img_mgmt_state_write refuses to confirm while a test is pending (IMG_MGMT_ERR_IMAGE_ALREADY_PENDING).
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        _ = await rig.dfu(["upload", SMPFirmware.image, "-d", Self.device, "--no-reset"])
        let run = await rig.dfu(["confirm", "-d", Self.device, "--hash", SMPFirmware.imageHashHex])
        #expect(run.code == .deviceRejected)
        #expect(run.errorLines.count == 1)
        #expect(run.error.contains("IMG_MGMT_ERR_IMAGE_ALREADY_PENDING"), "\(run.error)")
        #expect(SMPFirmware.target(rig)?.slots[0].nextBoot == .test)
    }

    @Test func confirmOfAnUnknownHashIsTheDevicesRefusal() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["confirm", "-d", Self.device, "--hash", String(repeating: "ab", count: 32)])
        #expect(run.code == .deviceRejected)
        #expect(run.errorLines.count == 1)
        #expect(run.error.hasPrefix("dfu: the device refused image confirm"), "\(run.error)")
    }

    @Test(arguments: [
        (["confirm", "-d", "C0:FF:EE:00:00:01", "--hash", "xyz"], "option --hash: 'xyz' is not an image hash (64, 96 or 128 hex digits)"),
        (["confirm", "-d", "C0:FF:EE:00:00:01", "--hash", String(repeating: "0", count: 64), "--image", "1"],
         "options --hash and --image exclude each other"),
        (["confirm", "-d", "C0:FF:EE:00:00:01", "--image", "16"], "option --image: '16' is not a whole number from 0 to 15"),
        (["images"], "missing --device ADDRESS|NAME"),
        (["reset", "-d", "C0:FF:EE:00:00:01", "--passkey", "1000000"], "option --passkey: '1000000' is not a whole number from 0 to 999999"),
    ])
    func badOptionsAreUsageErrors(_ arguments: [String], _ message: String) async {
        let run = await RecordedRun.dfu(arguments: arguments)
        #expect(run.code == .usage)
        #expect(run.errorLines.count == 1)
        #expect(run.error.hasPrefix("dfu: \(message) (see 'dfu \(arguments[0]) --help')"), "\(run.error)")
    }

    /// A file that is not a passkey (the wrong file, or a secret) is refused without echoing it.
    @Test(arguments: ["secret words\n", "1234567\n", "", "12 34\n"])
    func aPasskeyFileThatHoldsNoPasskeyIsRefusedWithoutEchoingIt(_ contents: String) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-passkey-\(UUID().uuidString)")
        try Data(contents.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        for command in ["reset", "upload"] {
            var arguments = [command, "-d", "C0:FF:EE:00:00:01", "--passkey-file", file.path]
            if command == "upload" { arguments.insert(SMPFirmware.image, at: 1) }
            let run = await RecordedRun.dfu(arguments: arguments)
            #expect(run.code == .usage, "\(command)")
            #expect(run.errorLines.count == 1)
            #expect(run.error.hasPrefix("dfu: option --passkey-file: \(file.path) does not hold one passkey (0 to 999999)"), "\(run.error)")
            #expect(contents.isEmpty || !run.error.contains(contents.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
    }

    @Test func aPasskeyOnTheCommandLineAndInAFileAreRefusedTogether() async {
        let run = await RecordedRun.dfu(arguments: ["images", "-d", "C0:FF:EE:00:00:01", "--passkey", "1", "--passkey-file", "/nonexistent"])
        #expect(run.code == .usage)
        #expect(run.error.hasPrefix("dfu: give --passkey or --passkey-file, not both"), "\(run.error)")
    }

    @Test func anNRF5DeviceIsNoSMPServerForImagesOrReset() async throws {
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        for command in ["images", "reset", "confirm", "erase"] {
            let run = await rig.dfu([command, "-d", Self.device])
            #expect(run.code == .deviceRejected, "\(command)")
            #expect(run.error.contains("not an SMP (MCUmgr) server"), "\(run.error)")
        }
        #expect(rig.writes(to: .buttonlessWithoutBonds).isEmpty)
    }

    @Test func scanShowsModeSMP() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["scan", "--json"])
        #expect(run.code == .success, "\(run.error)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let devices = try #require(answer["devices"] as? [[String: Any]])
        #expect(devices.first { $0["address"] as? String == Self.device }?["mode"] as? String == "smp")
        let table = await rig.dfu(["scan"])
        #expect(table.output.contains("SMP server (nRF Connect SDK, MCUboot)"))
    }
}
