import DFUCommand
import DFUCore
import DFUSimulator
import Foundation
import Testing

/// Speeds mean something: none until two seconds of transfer were measured, the average counts
/// only the bytes this run sent over the time they took, and no figure exceeds what BLE carries.
@Suite struct SpeedFigureTests {
    /// LE 2M PHY's raw bit rate in bytes per second: no firmware throughput can reach it.
    static let bleCeiling = 250_000

    static func events(_ run: RecordedRun) throws -> [[String: Any]] {
        try run.output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    static func upload(_ rig: SimulatedRig, interruptAfter: Int? = nil) async -> RecordedRun {
        await rig.dfu(["upload", UploadCommandTests.package("secure-app-512000.zip"), "-d", SimulatedRig.firstAddress, "--json"],
                      interruptAfterPacketBytes: interruptAfter)
    }

    @Test func noSpeedBeforeTwoSecondsAndNoneAboveWhatBLECarries() async throws {
        let rig = SimulatedRig([SimulatedRig.firstAddress: SimulatedRig.secureDevice()])
        let run = await Self.upload(rig)
        #expect(run.code == .success, "\(run.error)")
        let progress = try Self.events(run).filter { $0["event"] as? String == "progress" }
        #expect(progress.count > 10)
        for event in progress {
            let elapsed = try #require(event["elapsed"] as? Double)
            for key in ["speed", "average"] {
                guard let value = event[key] as? Int else { continue }
                #expect(value > 0 && value < Self.bleCeiling, "\(key) \(value) at \(elapsed) s")
            }
        }
        let first = try #require(progress.first)
        #expect(first["speed"] == nil && first["average"] == nil, "a figure after one batch of packets: \(first)")
        #expect(progress.contains { $0["average"] != nil }, "a 512000-byte upload runs long enough to measure")
        // The average never moves far from the bytes confirmed over the time since firmware began to flow.
        let averages = progress.compactMap { $0["average"] as? Int }
        #expect(averages.max().map { Double($0) } ?? 0 <= Double(averages.min() ?? 0) * 1.5, "\(averages)")
    }

    @Test func aResumedUploadCountsOnlyTheBytesItSent() async throws {
        // An SDK 12-14 bootloader (no Abort) keeps what it received, so the second run resumes.
        let rig = SimulatedRig([SimulatedRig.firstAddress: SimulatedRig.secureDevice(configure: { $0.supportsAbort = false })])
        let first = await Self.upload(rig, interruptAfter: 300_000)
        #expect(first.code == .interrupted, "\(first.error)")
        let second = await Self.upload(rig)
        #expect(second.code == .success, "\(second.error)")
        let events = try Self.events(second)
        let done = try #require(events.first { $0["event"] as? String == "done" })
        let bytes = try #require(done["bytes"] as? Int)
        #expect(bytes < 512_000 - 200_000, "the rerun sent \(bytes) bytes; most were already on the device")
        if let average = done["average"] as? Int { #expect(average < Self.bleCeiling) }
        for event in events where event["event"] as? String == "progress" {
            if let average = event["average"] as? Int { #expect(average < Self.bleCeiling, "\(event)") }
        }
    }

    @Test func aShortUploadGivesItsTimeButNoSpeed() async {
        let rig = SimulatedRig([SimulatedRig.firstAddress: SimulatedRig.secureDevice()])
        let run = await rig.dfu(["upload", UploadCommandTests.package("secure-app-4096.zip"), "-d", SimulatedRig.firstAddress])
        #expect(run.code == .success, "\(run.error)")
        let last = run.errorLines.last.map(String.init) ?? ""
        #expect(last.contains(": updated in ") && last.contains(", 4096 bytes sent (application)"), "\(last)")
        #expect(!last.contains("kB/s"), "\(last)")
    }
}
