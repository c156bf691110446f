@testable import DFUCommand
import DFUCore
import DFUSimulator
import Foundation
import Testing

/// Issue 26 point 9: one version form (MCUboot's "1.2.3+4") in `dfu inspect`, `dfu images` and its JSON.
@Suite struct SMPVersionFormTests {
    static let device = SimulatedRig.firstAddress

    @Test(arguments: [("1.2.3.4", "1.2.3+4"), ("1.2.3", "1.2.3+0"), ("255.255.65535.4294967295", "255.255.65535+4294967295"),
                      ("1.2", "1.2"), ("1.2.3-rc1", "1.2.3-rc1"), ("256.0.0", "256.0.0")])
    func theImageListVersionIsShownInMCUbootsForm(_ sent: String, _ shown: String) {
        #expect(SMPImageSlotState(slot: 0, version: sent, hash: nil).displayVersion == shown)
    }

    @Test func imagesAndInspectWriteTheSameVersion() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        _ = await rig.dfu(["upload", SMPFirmware.image, "-d", Self.device, "--no-reset"])
        let table = await rig.dfu(["images", "-d", Self.device])
        #expect(table.code == .success, "\(table.error)")
        #expect(table.output.contains("0      1     2.0.0+0           pending"), "\(table.output)")
        let json = await rig.dfu(["images", "-d", Self.device, "--json"])
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let slots = try #require(answer["slots"] as? [[String: Any]])
        #expect(slots.map { $0["version"] as? String } == ["1.0.0+0", "2.0.0+0"])
        let inspect = await RecordedRun.dfu("inspect", SMPFirmware.image)
        #expect(inspect.output.contains("2.0.0+0"), "\(inspect.output)")
    }
}
