import DFUCommand
import DFUCore
import DFUSimulator
import Foundation
import TestSupport
import Testing

/// Several devices in one run: concurrent, limited by --parallel, dealt over adapters, failures isolated.
@Suite struct UploadManyDevicesTests {
    static let addresses = ["C0:FF:EE:00:00:10", "C0:FF:EE:00:00:20", "C0:FF:EE:00:00:30"]
    static let app = UploadCommandTests.app

    /// Three devices; the second rejects every init packet.
    static func rig(openTogether: Int = 0) -> SimulatedRig {
        var devices: [String: SimulatedPeripheral] = [:]
        for (index, address) in addresses.enumerated() {
            devices[address] = SimulatedRig.secureDevice(address, configure: { configuration in
                if index == 1 { configuration.rejectInitPacketWith = SecureDFUExtendedError(rawValue: 0x05) }
            })
        }
        return SimulatedRig(devices, openTogether: openTogether)
    }

    static var deviceArguments: [String] { addresses.flatMap { ["--device", $0] } }

    @Test func oneFailureDoesNotStopTheOthersAndTheSummaryNamesIt() async {
        let rig = Self.rig()
        let run = await rig.dfu(["upload", Self.app] + Self.deviceArguments)
        #expect(run.code == .deviceRejected)
        #expect(rig.transport(Self.addresses[0])?.peripheral().storage.application?.count == 4096)
        #expect(rig.transport(Self.addresses[1])?.peripheral().storage.application?.count == 1)
        #expect(rig.transport(Self.addresses[2])?.peripheral().storage.application?.count == 4096)
        #expect(run.error.contains("dfu: C0:FF:EE:00:00:20: the bootloader rejected the init packet"))
        #expect(run.errorLines.last == "3 devices: 2 updated, 1 not updated (C0:FF:EE:00:00:20)")
    }

    @Test func everyDeviceHasItsOwnJSONEventsAndResult() async throws {
        let rig = Self.rig()
        let run = await rig.dfu(["upload", Self.app, "--json"] + Self.deviceArguments)
        let events = try run.output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let done = events.filter { $0["event"] as? String == "done" }
        #expect(Set(done.compactMap { $0["device"] as? String }) == Set(Self.addresses))
        #expect(done.first { $0["device"] as? String == Self.addresses[1] }?["result"] as? String == "failed")
        for address in Self.addresses {
            #expect(events.contains { $0["device"] as? String == address && $0["event"] as? String == "state" })
        }
        let summary = try #require(events.last)
        #expect(summary["event"] as? String == "summary")
        #expect(summary["updated"] as? Int == 2)
        #expect(summary["failed"] as? [String] == [Self.addresses[1]])
        #expect(summary["exit_code"] as? Int == 1)
    }

    @Test func allSucceedingDevicesExit0() async {
        let rig = Self.rig()
        let run = await rig.dfu(["upload", Self.app, "-d", Self.addresses[0], "-d", Self.addresses[2]])
        #expect(run.code == .success, "\(run.error)")
        #expect(run.errorLines.last == "2 devices: 2 updated, 0 not updated")
    }

    @Test(.timeLimit(.minutes(TestTime.limitMinutes(1))))
    func devicesAreUpdatedConcurrently() async {
        // Each link opens only once all three were asked for: this finishes (within the time limit)
        // only if the three devices are updated at the same time.
        let rig = Self.rig(openTogether: 3)
        let run = await rig.dfu(["upload", Self.app, "--parallel", "3"] + Self.deviceArguments)
        #expect(run.code == .deviceRejected)
        #expect(rig.adapters.count == 3)
    }

    @Test(arguments: [1, 2])
    func parallelLimitsHowManyRunAtOnce(_ limit: Int) async {
        let rig = Self.rig()
        let run = await rig.dfu(["upload", Self.app, "--parallel", String(limit)] + Self.deviceArguments)
        #expect(run.code == .deviceRejected)
        #expect(rig.mostOpenAtOnce <= limit)
        #expect(rig.adapters.count == 3)
    }

    @Test func devicesAreDealtOverTheAdapters() async {
        let rig = Self.rig()
        _ = await rig.dfu(["upload", Self.app, "--adapter", "hci0", "--adapter", "hci1"] + Self.deviceArguments)
        let adapters = rig.adapters
        #expect(adapters[Self.addresses[0]] == "hci0")
        #expect(adapters[Self.addresses[1]] == "hci1")
        #expect(adapters[Self.addresses[2]] == "hci0")
    }

    @Test func devicesFromAFileAreAddedToTheOthers() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-devices-\(UUID().uuidString).txt")
        try "# rig 1\n\(Self.addresses[1])\n\n  \(Self.addresses[2])  \n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let rig = Self.rig()
        let run = await rig.dfu(["upload", Self.app, "-d", Self.addresses[0], "--devices-from", file.path])
        #expect(run.code == .deviceRejected)
        #expect(Set(rig.adapters.keys) == Set(Self.addresses))
        #expect(run.errorLines.last == "3 devices: 2 updated, 1 not updated (C0:FF:EE:00:00:20)")
    }

    @Test func anEmptyDevicesFileIsAUsageError() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-devices-\(UUID().uuidString).txt")
        try "# nothing here\n\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = await Self.rig().dfu(["upload", Self.app, "--devices-from", file.path])
        #expect(run.code == .usage)
        #expect(run.error.contains("option --devices-from: \(file.path) names no device"))
    }

    @Test func liveOutputHasOneLinePerDevice() async {
        let rig = Self.rig()
        let run = await rig.dfu(["upload", Self.app, "--parallel", "1"] + Self.deviceArguments,
                                environment: ["TERM": "xterm"], errorIsTerminal: true, columns: 200)
        // Three lines are drawn and redrawn in place: the cursor goes up three lines each time.
        #expect(run.error.contains("\u{1B}[3A\r"))
        let screen = UploadOutputTests.stripped(run.error)
        #expect(screen.contains("C0:FF:EE:00:00:30  waiting") || screen.contains("C0:FF:EE:00:00:30  part"))
        #expect(screen.contains("C0:FF:EE:00:00:10: updated in "))
        #expect(screen.hasSuffix("3 devices: 2 updated, 1 not updated (C0:FF:EE:00:00:20)\n"))
    }
}
