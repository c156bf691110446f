import DFUCommand
import DFUCore
import DFUSimulator
import Synchronization
import Testing

/// How quickly `dfu upload` gets to the first firmware byte, in real (CPU) time and in simulated
/// air time, for the 500 KB package. Printed for the issue; bounded loosely so a regression fails.
@Suite struct UploadMeasurementTests {
    @Test func firstByteIsSentSoonAfterStart() async throws {
        let rig = SimulatedRig([SimulatedRig.firstAddress: SimulatedRig.secureDevice()])
        let firstByte = Mutex<Duration?>(nil)
        let wall = ContinuousClock()
        let start = wall.now
        let base = rig.provider
        let provider = TransportProvider { adapter, device in
            let session = try await base.open(adapter, device)
            let watched = FirstByteTransport(base: session.transport) {
                firstByte.withLock { if $0 == nil { $0 = start.duration(to: wall.now) } }
            }
            return TransportSession(transport: watched, clock: session.clock, close: session.close)
        }
        let run = await RecordedRun.dfu(
            arguments: ["upload", UploadCommandTests.package("secure-app-512000.zip"), "-d", SimulatedRig.firstAddress, "-q"],
            transports: provider)
        let total = start.duration(to: wall.now)
        #expect(run.code == .success, "\(run.error)")
        let first = try #require(firstByte.withLock { $0 })
        let air = rig.transport()?.trace.first { if case .write(.securePacket, _) = $0.event { true } else { false } }?.time
        print("dfu upload 512000-byte package: first byte after \(first) of real time (\(air.map { "\($0)" } ?? "?") simulated air time), whole run \(total) real time")
        // Loose: other tests run in parallel on a shared machine; alone it is well under 0.1 s.
        #expect(first < .seconds(15))
    }
}
