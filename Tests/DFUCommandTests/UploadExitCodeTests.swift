import DFUCommand
import DFUCore
import DFUSimulator
import Foundation
import Testing

/// Each exit code of `dfu upload`, one by one.
@Suite struct UploadExitCodeTests {
    static let device = SimulatedRig.firstAddress
    static let app = UploadCommandTests.app

    @Test func successIs0() async {
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        #expect(await rig.dfu(["upload", Self.app, "-d", Self.device]).code.rawValue == 0)
    }

    @Test func rejectedUpdateIs1AndNamesTheRemoteAndExtendedError() async {
        let device = SimulatedRig.secureDevice(configure: { $0.rejectInitPacketWith = SecureDFUExtendedError(rawValue: 0x05) })
        let rig = SimulatedRig([Self.device: device])
        let run = await rig.dfu(["upload", Self.app, "-d", Self.device])
        #expect(run.code.rawValue == 1)
        #expect(run.error.contains("dfu: \(Self.device): the bootloader rejected the init packet"), "\(run.error)")
        #expect(run.error.contains("(extended error 0x05)"), "\(run.error)")
    }

    @Test func deviceNotFoundIs2() async {
        let rig = SimulatedRig([:])
        let run = await rig.dfu(["upload", Self.app, "-d", "C0:FF:EE:00:00:77", "--scan-timeout", "1"])
        #expect(run.code.rawValue == 2, "\(run.error)")
    }

    @Test func deviceThatStopsAnsweringIs2() async {
        let device = SimulatedRig.secureDevice(configure: { $0.neverAnswers = true })
        let rig = SimulatedRig([Self.device: device])
        let run = await rig.dfu(["upload", Self.app, "-d", Self.device])
        #expect(run.code.rawValue == 2, "\(run.error)")
        #expect(run.error.contains("no answer from the device within"), "\(run.error)")
    }

    @Test func usageErrorIs64() async {
        #expect(await RecordedRun.dfu("upload", Self.app, "-d", Self.device, "--prn", "x").code.rawValue == 64)
        #expect(await RecordedRun.dfu("upload", "-d", Self.device).code.rawValue == 64)
    }

    @Test func badPackageIs65BeforeAnyBluetoothWork() async throws {
        let folder = TestData.fixtures.appendingPathComponent("bad")
        let bad = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".zip") }.sorted().first)
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await rig.dfu(["upload", folder.appendingPathComponent(bad).path, "-d", Self.device])
        #expect(run.code.rawValue == 65, "\(run.error)")
        #expect(rig.adapters.isEmpty)
    }

    @Test func packageForTheOtherProtocolIs65() async {
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await rig.dfu(["upload", UploadCommandTests.package("legacy-app.zip"), "-d", Self.device])
        #expect(run.code.rawValue == 65, "\(run.error)")
        #expect(run.error.contains("the package is for Legacy DFU") || run.error.contains("legacy"), "\(run.error)")
    }

    @Test func missingFileIs66() async {
        let run = await RecordedRun.dfu("upload", "/nonexistent/app.zip", "-d", Self.device)
        #expect(run.code.rawValue == 66)
    }

    @Test func bluetoothUnavailableIs69() async {
        // The default context has no Bluetooth stack: like BlueZ not running.
        let run = await RecordedRun.dfu("upload", Self.app, "-d", Self.device)
        #expect(run.code.rawValue == 69)
        #expect(run.errorLines == ["dfu: \(Self.device): this dfu was built without a Bluetooth stack; BlueZ is not available"])
        let provider = TransportProvider { adapter, _ in
            throw TransportUnavailableError(reason: "adapter \(adapter ?? "?") is powered off; run 'bluetoothctl power on'")
        }
        let off = await RecordedRun.dfu(arguments: ["upload", Self.app, "-d", Self.device, "--adapter", "hci1"], transports: provider)
        #expect(off.code.rawValue == 69)
        #expect(off.error.contains("adapter hci1 is powered off"))
    }

    @Test func interruptedIs130() async {
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await rig.dfu(["upload", Self.app, "-d", Self.device], interruptAfterPacketBytes: 1000)
        #expect(run.code.rawValue == 130, "\(run.error)")
    }
}
