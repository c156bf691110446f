import Foundation
import Testing

/// `dfu upload` through dfu-sim when the host side fails mid-upload: bluetoothd restarting (the
/// upload resumes once it is back) and the adapter being unplugged (one line naming the adapter).
@Suite(.enabled(if: DFUSimRun.available)) struct DFUSimHostFaultTests {
    static let address = "C0:FF:EE:00:00:10"
    static let secure = "secure,address=\(address),sd_id=0xB7"

    @Test(arguments: [500, 3000])
    func bluetoothdRestartingMidUploadIsWaitedForAndTheUploadCompletes(afterBytes: Int) async throws {
        let run = try await DFUSimRun.run(
            devices: [Self.secure], faults: ["restart-after-bytes=\(afterBytes)"],
            ["upload", DFUSimEndToEndTests.app, "-d", Self.address, "-q", "--scan-timeout", "3"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.imageSize(Self.address, "application") == 4096)
        // One link before the restart, one after it.
        #expect(run.stat(Self.address, "connections") == 2)
    }

    @Test func theAdapterVanishingMidUploadIsNamedInOneLineWithExitCode69() async throws {
        let run = try await DFUSimRun.run(
            devices: [Self.secure], faults: ["adapter-vanish-after-bytes=500"],
            ["upload", DFUSimEndToEndTests.app, "-d", Self.address, "-q", "--scan-timeout", "1"])
        #expect(run.status == 69, "the host's Bluetooth is unavailable: \(run.error)")
        let lines = run.error.split(separator: "\n")
        #expect(lines.count == 1, "\(run.error)")
        #expect(lines.first?.hasPrefix("dfu: \(Self.address): ") == true)
        #expect(lines.first?.hasSuffix("there is no Bluetooth adapter hci0 (it was removed)") == true, "\(run.error)")
        #expect(run.imageSize(Self.address, "application") == 1, "the factory application stays")
    }
}
