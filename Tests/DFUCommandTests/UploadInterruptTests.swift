import DFUCommand
import DFUCore
import DFUSimulator
import Testing

/// Ctrl-C or SIGTERM during an upload: Abort where supported, disconnect, say where the device is,
/// exit 130; the same command again resumes.
@Suite struct UploadInterruptTests {
    static let device = SimulatedRig.firstAddress
    static let big = UploadCommandTests.package("secure-app-512000.zip")

    @Test func interruptSendsAbortDisconnectsAndSaysWhereTheDeviceIs() async throws {
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await rig.dfu(["upload", Self.big, "-d", Self.device], interruptAfterPacketBytes: 100_000)
        #expect(run.code == .interrupted)
        let last = try #require(run.errorLines.last)
        #expect(last.hasPrefix("dfu: \(Self.device): interrupted in part 1/1 while uploading at "), "\(last)")
        // An SDK 15 bootloader resets on Abort and drops the object: no resume is promised.
        #expect(last.hasSuffix("; the bootloader accepted Abort: the device resets and keeps its previous firmware if it is still valid, "
                               + "otherwise it waits in its bootloader; the same command again starts this part over"), "\(last)")
        #expect(rig.writes(to: .secureControlPoint).last == [0x0C], "Abort is the last request")
        let trace = try #require(rig.transport()?.trace)
        guard case .disconnected = trace.last?.event else {
            Issue.record("the link is left open: \(String(describing: trace.last))")
            return
        }
        #expect(rig.packetBytes() < 200_000, "the upload stopped soon after the interrupt")
        // The closed link is not taken for a lost one: no attempt to reconnect.
        let afterUploading = run.errorLines.drop { !$0.hasSuffix("part 1/1 uploading") }
        #expect(!afterUploading.isEmpty && !afterUploading.contains { $0.hasSuffix(" connecting") }, "\(run.errorLines)")
    }

    @Test func interruptIsAnEventInJSON() async {
        let rig = SimulatedRig([Self.device: SimulatedRig.secureDevice()])
        let run = await rig.dfu(["upload", Self.big, "-d", Self.device, "--json"], interruptAfterPacketBytes: 50_000)
        #expect(run.code == .interrupted)
        #expect(run.output.contains("\"event\":\"done\",\"exit_code\":130"))
        #expect(run.output.contains("\"result\":\"interrupted\""))
    }

    /// An SDK 12–14 bootloader (no Abort): it stays in DFU mode with what it received.
    static var bootloaderWithoutAbort: SimulatedPeripheral {
        SimulatedRig.secureDevice(configure: { $0.supportsAbort = false })
    }

    @Test func runningTheSameCommandAgainResumes() async throws {
        let rig = SimulatedRig([Self.device: Self.bootloaderWithoutAbort])
        let arguments = ["upload", Self.big, "-d", Self.device]
        let first = await rig.dfu(arguments, interruptAfterPacketBytes: 300_000)
        #expect(first.code == .interrupted)
        let sentBefore = rig.packetBytes()
        let second = await rig.dfu(arguments)
        #expect(second.code == .success, "\(second.error)")
        let sentAgain = rig.packetBytes() - sentBefore
        #expect(sentAgain < 512_000 - 250_000, "resumed: \(sentAgain) bytes sent the second time")
        #expect(rig.transport()?.peripheral().storage.application?.count == 512_000)
    }

    @Test func noResumeStartsOver() async throws {
        let rig = SimulatedRig([Self.device: Self.bootloaderWithoutAbort])
        let first = await rig.dfu(["upload", Self.big, "-d", Self.device], interruptAfterPacketBytes: 300_000)
        #expect(first.code == .interrupted)
        let sentBefore = rig.packetBytes()
        let second = await rig.dfu(["upload", Self.big, "-d", Self.device, "--no-resume"])
        #expect(second.code == .success, "\(second.error)")
        #expect(rig.packetBytes() - sentBefore >= 512_000)
    }

    @Test func devicesNotYetStartedAreReportedUnchanged() async {
        let addresses = ["C0:FF:EE:00:00:10", "C0:FF:EE:00:00:20"]
        var devices: [String: SimulatedPeripheral] = [:]
        for address in addresses { devices[address] = SimulatedRig.secureDevice(address) }
        let rig = SimulatedRig(devices)
        let run = await rig.dfu(["upload", Self.big, "--parallel", "1", "-d", addresses[0], "-d", addresses[1]],
                                interruptAfterPacketBytes: 10_000)
        #expect(run.code == .interrupted)
        #expect(run.error.contains("dfu: C0:FF:EE:00:00:20: interrupted before the update began; the device was not changed"))
        #expect(rig.adapters[addresses[1]] == nil, "the second device was never opened")
    }
}
