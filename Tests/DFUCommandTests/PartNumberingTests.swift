import DFUCommand
import DFUCore
import DFUSimulator
import Foundation
import Testing

/// Parts keep their numbers when the bootloader skips one: a SoftDevice+bootloader+application
/// package on a device whose bootloader is already at the package's version (2) sends only the
/// application, and every line calls it part 2 of 2, never "part 2/1".
@Suite struct PartNumberingTests {
    static func rig() -> SimulatedRig {
        let profile = SimulatedRig.secureDevice().profile
        let device = SimulatedPeripheral(profile: profile, storage: SimulatedStorage(softdeviceID: 0x101, bootloaderVersion: 2))
        return SimulatedRig([SimulatedRig.firstAddress: device])
    }

    @Test func aSkippedSystemPartKeepsTheApplicationPart2Of2InJSON() async throws {
        let run = await Self.rig().dfu(["upload", UploadCommandTests.package("secure-sd-bl-app.zip"),
                                        "-d", SimulatedRig.firstAddress, "--json"])
        #expect(run.code == .success, "\(run.error)")
        let events = try run.output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let numbered = events.filter { $0["part"] != nil }
        #expect(!numbered.isEmpty)
        for event in numbered {
            let part = try #require(event["part"] as? Int), parts = try #require(event["parts"] as? Int)
            #expect(part <= parts && parts == 2, "\(event)")
        }
        let uploading = events.filter { $0["event"] as? String == "progress" }
        #expect(!uploading.isEmpty && uploading.allSatisfy { $0["part"] as? Int == 2 })
        let done = try #require(events.first { $0["event"] as? String == "done" })
        #expect(done["parts_skipped"] as? [String] == ["softdevice_bootloader"])
        #expect(done["parts_sent"] as? [String] == ["application"])
    }

    @Test func aSkippedSystemPartNeverReadsPart2Of1OnPlainLines() async {
        let run = await Self.rig().dfu(["upload", UploadCommandTests.package("secure-sd-bl-app.zip"), "-d", SimulatedRig.firstAddress])
        #expect(run.code == .success, "\(run.error)")
        #expect(!run.error.contains("part 2/1"), "\(run.error)")
        #expect(run.error.contains("part 2/2 uploading"))
    }
}
