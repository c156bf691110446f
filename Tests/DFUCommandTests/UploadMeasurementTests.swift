import DFUCommand
import DFUCore
import DFUSimulator
import Synchronization
import Testing

/// How quickly `dfu upload` gets to the first byte on the Packet characteristic, in real time and
/// in simulated air time, for the 500 KB package. Printed for the issue; the air time is bounded.
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
        // Real time depends on what else runs (tests share the thread pool), so only the simulated
        // air time is bounded: connect, buttonless jump, reconnect, init packet.
        let airTime = try #require(air)
        #expect(airTime < .seconds(2), "\(airTime)")
    }
}
