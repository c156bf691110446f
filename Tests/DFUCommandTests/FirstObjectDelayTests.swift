import DFUCommand
import DFUCore
import DFUSimulator
import Testing

/// `--first-object-delay MS` means what it says: after the bootloader answers Create for the
/// first data object, the first firmware packet waits MS (0 = not at all), flash pacing or not.
@Suite struct FirstObjectDelayTests {
    /// Air time from the answer to the first Create data object (60 01 01) to the next packet written.
    static func gapAfterFirstCreate(_ extra: [String]) async throws -> Duration {
        let rig = SimulatedRig([SimulatedRig.firstAddress: SimulatedRig.secureDevice()])
        let run = await rig.dfu(["upload", UploadCommandTests.package("secure-app-4096.zip"), "-d", SimulatedRig.firstAddress] + extra)
        #expect(run.code == .success, "\(run.error)")
        let trace = try #require(rig.transport()?.trace)
        let createData = try #require(trace.firstIndex { $0.event == .write(.secureControlPoint, [0x01, 0x02, 0x00, 0x10, 0x00, 0x00]) })
        let answer = try #require(trace[createData...].firstIndex {
            if case .notification(.secureControlPoint, let bytes) = $0.event { bytes.starts(with: [0x60, 0x01]) } else { false }
        })
        let packet = try #require(trace[answer...].first { if case .write(.securePacket, _) = $0.event { true } else { false } })
        return packet.time - trace[answer].time
    }

    @Test func anExplicitDelayIsWaitedWithFlashPacing() async throws {
        let gap = try await Self.gapAfterFirstCreate(["--first-object-delay", "400"])
        #expect(gap >= .milliseconds(400), "\(gap)")
    }

    @Test func zeroMeansNoWaitAndDiffersFrom400() async throws {
        let none = try await Self.gapAfterFirstCreate(["--first-object-delay", "0"])
        let some = try await Self.gapAfterFirstCreate(["--first-object-delay", "400"])
        #expect(none < .milliseconds(100), "\(none)")
        #expect(some - none >= .milliseconds(300))
    }

    @Test func verboseSaysWhatIsWaited() async {
        let rig = SimulatedRig([SimulatedRig.firstAddress: SimulatedRig.secureDevice()])
        let paced = await rig.dfu(["upload", UploadCommandTests.package("secure-app-4096.zip"), "-d", SimulatedRig.firstAddress, "-v"])
        #expect(paced.error.contains("first object paced to the flash (no fixed delay)"), "\(paced.error)")
        let fixed = await rig.dfu(["upload", UploadCommandTests.package("secure-app-4096.zip"), "-d", SimulatedRig.firstAddress,
                                   "-v", "--first-object-delay", "500"])
        #expect(fixed.error.contains("first object delay 0.5 s"), "\(fixed.error)")
    }
}
