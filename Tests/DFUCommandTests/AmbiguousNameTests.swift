import DFUCommand
import DFUCore
import DFUSimulator
import Foundation
import Testing

/// A device named by its advertised name: refused when two devices advertise it, and reported
/// with the address it turned out to have.
@Suite struct AmbiguousNameTests {
    static let first = "C0:FF:EE:00:00:20", second = "C0:FF:EE:00:00:30"
    /// Where their bootloaders advertise: the application's address + 1.
    static let firstBootloader = "C0:FF:EE:00:00:21", secondBootloader = "C0:FF:EE:00:00:31"

    /// A device waiting in its Secure bootloader at `address`, advertising DfuTarg.
    static func waiting(_ address: String) -> SimulatedPeripheral {
        SimulatedPeripheral(profile: SimulatedRig.secureDevice(address).profile, storage: SimulatedStorage(softdeviceID: 0xB7),
                            startInBootloader: true)
    }

    @Test func aNameTwoDevicesAdvertiseIsRefusedWithTheCandidates() async {
        let rig = SimulatedRig([Self.first: Self.waiting(Self.first), Self.second: Self.waiting(Self.second)])
        let run = await rig.dfu(["upload", UploadCommandTests.package("secure-app-1024.zip"), "-d", "DfuTarg"])
        #expect(run.code == .usage, "\(run.error)")
        #expect(run.errorLines.last == "dfu: DfuTarg: the name 'DfuTarg' is advertised by 2 devices (\(Self.firstBootloader), \(Self.secondBootloader)); give the address of the one to update")
        #expect(rig.packetBytes(Self.first) == 0 && rig.packetBytes(Self.second) == 0, "nothing was sent")
    }

    @Test func aUniqueNameIsUpdatedAndTheResultNamesTheAddress() async throws {
        let rig = SimulatedRig(["DfuTarg": Self.waiting(Self.first)])
        let plain = await rig.dfu(["upload", UploadCommandTests.package("secure-app-1024.zip"), "-d", "DfuTarg"])
        #expect(plain.code == .success, "\(plain.error)")
        #expect(plain.errorLines.last?.hasPrefix("DfuTarg (\(Self.firstBootloader)): updated in ") == true, "\(plain.error)")
    }

    @Test func theJSONResultCarriesTheAddress() async throws {
        let rig = SimulatedRig(["DfuTarg": Self.waiting(Self.first)])
        let run = await rig.dfu(["upload", UploadCommandTests.package("secure-app-1024.zip"), "-d", "DfuTarg", "--json"])
        #expect(run.code == .success, "\(run.error)")
        let done = try #require(run.output.split(separator: "\n").first { $0.contains("\"event\":\"done\"") })
        #expect(done.contains("\"address\":\"\(Self.firstBootloader)\""), "\(done)")
    }
}
