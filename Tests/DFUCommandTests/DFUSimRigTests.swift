import DFUCore
import DFUCrypto
import DFUSimulator
import Foundation
import Testing
import DFUFormats

/// The options a flashing rig uses, end to end through `dfu-sim run`: devices from a file, how
/// many at once, quiet output, and raw images with their init packet.
@Suite(.enabled(if: DFUSimRun.available)) struct DFUSimRigTests {
    static let app = UploadCommandTests.package("secure-app-4096.zip")
    static let addresses = ["C0:FF:EE:00:00:10", "C0:FF:EE:00:00:20", "C0:FF:EE:00:00:30"]
    static let devices = addresses.map { "secure,address=\($0),sd_id=0xB7" }

    /// A fresh temporary folder, removed by the caller.
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-rig-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func devicesFromReadsAddressesAndSkipsCommentLinesAndBlankLines() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("rig.txt")
        // Lines starting with # are comments; blank lines and surrounding spaces are ignored.
        try "# station 1\n\(Self.addresses[0])\n\n  # station 3\n  \(Self.addresses[2])  \n".write(to: list, atomically: true, encoding: .utf8)
        let run = try await DFUSimRun.run(devices: Self.devices, ["upload", Self.app, "--devices-from", list.path])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.addresses[0], "application") == 4096)
        #expect(run.imageSize(Self.addresses[1], "application") == 1, "not in the file: not touched")
        #expect(run.stat(Self.addresses[1], "connections") == 0)
        #expect(run.imageSize(Self.addresses[2], "application") == 4096)
        #expect(run.error.hasSuffix("2 devices: 2 updated, 0 not updated\n"), "\(run.error)")
    }

    /// The JSON events' devices in order, each with whether the event ends that device (`done`).
    static func eventOrder(_ output: String) -> [(device: String, done: Bool)] {
        output.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let device = object["device"] as? String
            else { return nil }
            return (device, object["event"] as? String == "done")
        }
    }

    @Test(arguments: [1, 3])
    func parallelBoundsHowManyDevicesAreUpdatedAtOnce(_ parallel: Int) async throws {
        let arguments = ["upload", Self.app, "-j", String(parallel), "--json", "--first-object-delay", "800"]
            + Self.addresses.flatMap { ["-d", $0] }
        let run = try await DFUSimRun.run(devices: Self.devices, arguments)
        #expect(run.status == 0, "\(run.error)")
        let order = Self.eventOrder(run.output)
        // How many devices had begun (sent any event) and not yet ended, at most, over the run.
        var active: Set<String> = []
        var finished: Set<String> = []
        var most = 0
        for (device, done) in order {
            if !finished.contains(device) { active.insert(device) }
            most = max(most, active.count)
            if done {
                active.remove(device)
                finished.insert(device)
            }
        }
        #expect(finished.count == 3)
        #expect(most == parallel, "at most \(parallel) at once, and that many: \(most)")
        for address in Self.addresses { #expect(run.imageSize(address, "application") == 4096) }
    }

    @Test func quietPrintsNothingOnSuccessAndOnlyTheErrorOnFailure() async throws {
        let run = try await DFUSimRun.run(devices: Self.devices, ["upload", Self.app, "-d", Self.addresses[0], "-q"])
        #expect(run.status == 0)
        #expect(run.error.isEmpty && run.output.isEmpty, "\(run.error)")
        #expect(run.imageSize(Self.addresses[0], "application") == 4096)
        let loud = try await DFUSimRun.run(devices: Self.devices, ["upload", Self.app, "-d", Self.addresses[0]])
        #expect(!loud.error.isEmpty, "without -q there is progress")
        let failed = try await DFUSimRun.run(devices: Self.devices,
                                       ["upload", Self.app, "-d", "C0:FF:EE:00:00:77", "-q", "--scan-timeout", "0.5"])
        #expect(failed.status == 2)
        #expect(failed.error.split(separator: "\n").count == 1, "one line: \(failed.error)")
        #expect(failed.error.hasPrefix("dfu: C0:FF:EE:00:00:77: no device matching"), "\(failed.error)")
    }

    @Test func rawImageWithInitAndTypeIsUploadedByteExact() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 2048 bytes of a pattern, and an unsigned init packet for it: application, FW version 2,
        // HW version 52, SoftDevice 0xB7, SHA-256 of the image (stored little-endian).
        let image = (0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let command = SecureInitCommand(kind: .application, image: image, firmwareVersion: 2, hardwareVersion: 52,
                                        softdeviceRequirements: [0xB7], softdeviceSize: nil,
                                        hash: Array(SHA256.digest(image).reversed()))
        let bin = folder.appendingPathComponent("app.bin")
        let dat = folder.appendingPathComponent("app.dat")
        try Data(image).write(to: bin)
        try Data(command.packet).write(to: dat)
        let device = "secure,address=\(Self.addresses[0]),sd_id=0xB7,hw_version=52"
        let run = try await DFUSimRun.run(devices: [device], ["upload", bin.path, "--type", "application", "--init", dat.path,
                                                        "-d", Self.addresses[0]])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.addresses[0], "application") == 2048)
        #expect(run.imageCRC(Self.addresses[0], "application") == DFUSimRun.crcHex(CRC32.checksum(image)))
        // The same image declared as a bootloader: the init packet says application, so it is refused
        // before anything is sent.
        let mismatched = try await DFUSimRun.run(devices: [device], ["upload", bin.path, "--type", "bootloader", "--init", dat.path,
                                                               "-d", Self.addresses[0]])
        #expect(mismatched.status == 65, "\(mismatched.error)")
        #expect(mismatched.stat(Self.addresses[0], "connections") == 0)
    }

    @Test func rawSoftDeviceBootloaderImageIsSplitBySDSizeAndBLSize() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // 8192 bytes: a 6144-byte SoftDevice followed by a 2048-byte bootloader, with an unsigned
        // init packet declaring those sizes.
        let image = (0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
        let command = SecureInitCommand(kind: .softdeviceBootloader, image: image, firmwareVersion: 2, hardwareVersion: 52,
                                        softdeviceRequirements: [0xB7], softdeviceSize: 6144, bootloaderSize: 2048,
                                        hash: Array(SHA256.digest(image).reversed()))
        let bin = folder.appendingPathComponent("sd_bl.bin")
        let dat = folder.appendingPathComponent("sd_bl.dat")
        try Data(image).write(to: bin)
        try Data(command.packet).write(to: dat)
        let device = "secure,address=\(Self.addresses[0]),sd_id=0xB7,sd_id_after=0x101,hw_version=52"
        let upload = ["upload", bin.path, "--type", "softdevice_bootloader", "--init", dat.path, "-d", Self.addresses[0]]
        let run = try await DFUSimRun.run(devices: [device], upload + ["--sd-size", "6144", "--bl-size", "2048"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.addresses[0], "softdevice") == 6144)
        #expect(run.imageCRC(Self.addresses[0], "softdevice") == DFUSimRun.crcHex(CRC32.checksum(image[..<6144])))
        #expect(run.imageSize(Self.addresses[0], "bootloader") == 2048)
        #expect(run.imageCRC(Self.addresses[0], "bootloader") == DFUSimRun.crcHex(CRC32.checksum(image[6144...])))
        let wrong = try await DFUSimRun.run(devices: [device], upload + ["--sd-size", "4096", "--bl-size", "4096"])
        #expect(wrong.status == 65, "sizes that disagree with the init packet: \(wrong.error)")
        #expect(wrong.stat(Self.addresses[0], "connections") == 0)
    }

    @Test func scanAndTriggerAnswerInJSON() async throws {
        let devices = ["buttonless,address=\(Self.addresses[0])", "secure,address=\(Self.addresses[1])"]
        let scan = try await DFUSimRun.run(devices: devices, ["scan", "--timeout", "1", "--json"])
        #expect(scan.status == 0, "\(scan.error)")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(scan.output.utf8)) as? [String: Any])
        let entries = try #require(listed["devices"] as? [[String: Any]])
        // Only the bootloader advertises a DFU service (the application advertises Heart Rate).
        #expect(entries.map { $0["address"] as? String } == [Self.addresses[1]])
        #expect(entries.first?["mode"] as? String == "secure-bootloader")
        #expect(entries.first?["name"] as? String == "DfuTarg")
        let all = try await DFUSimRun.run(devices: devices, ["scan", "--timeout", "1", "--json", "--all"])
        #expect(all.output.contains(Self.addresses[0]), "--all lists the application too: \(all.output)")
        let trigger = try await DFUSimRun.run(devices: devices, ["trigger", "-d", Self.addresses[0], "--alt-name", "RigBoot", "--json",
                                                           "--adapter", "hci0"])
        #expect(trigger.status == 0, "\(trigger.error)")
        #expect(trigger.output == "{\"bootloader\":\"C0:FF:EE:00:00:11\",\"name\":\"RigBoot\",\"switched\":true}\n")
    }
}
