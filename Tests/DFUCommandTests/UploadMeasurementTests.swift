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

/// Calls `onFirstPacket` before every packet write (the caller keeps the first).
final class FirstByteTransport: DFUTransport {
    let base: any DFUTransport
    let onFirstPacket: @Sendable () -> Void

    init(base: any DFUTransport, onFirstPacket: @escaping @Sendable () -> Void) {
        self.base = base
        self.onFirstPacket = onFirstPacket
    }

    func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer { try await base.connect(parameters) }
    func enableNotifications(on endpoint: DFUEndpoint) async throws(DFUTransportError) { try await base.enableNotifications(on: endpoint) }
    func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError) {
        if endpoint == .securePacket || endpoint == .legacyPacket { onFirstPacket() }
        try await base.write(bytes, to: endpoint, type: type)
    }
    func read(_ endpoint: DFUEndpoint) async throws(DFUTransportError) -> [UInt8] { try await base.read(endpoint) }
    func nextNotification(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification {
        try await base.nextNotification(within: timeout)
    }
    func waitForDisconnection(within timeout: Duration) async -> Bool { await base.waitForDisconnection(within: timeout) }
    func disconnect() async { await base.disconnect() }
}
