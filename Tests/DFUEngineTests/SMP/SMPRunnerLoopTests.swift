@testable import DFUCore
import Synchronization
import Testing

/// The runner's own machine loop (`DFURunner.drive`, through `update(_:device:)` with a plan) carrying the
/// SMP machine's actions over a transport whose device is ``ScriptedSMPServer``: the actions need nothing
/// the loop lacks, and the plan reaches the machine through ``DFUMachineSetup/smpPlan``.
@Suite struct SMPRunnerLoopTests {
    static let image = SMPUploadMachineTests.image(30_000, seed: 21)

    /// Writes go to the server; its answers come back as notifications of at most 244 bytes.
    final class ServerTransport: DFUTransport {
        let server: Mutex<ScriptedSMPServer>
        let notifications = Mutex<[[UInt8]]>([])

        init(_ server: sending ScriptedSMPServer) { self.server = Mutex(server) }

        func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer {
            SMPUploadMachineTests.peer
        }
        func enableNotifications(on endpoint: DFUEndpoint) async throws(DFUTransportError) {}
        func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError) {
            let answers = server.withLock { $0.receive(bytes) }
            for answer in answers {
                let pieces = stride(from: 0, to: answer.count, by: 244).map { Array(answer[$0..<min($0 + 244, answer.count)]) }
                notifications.withLock { $0 += pieces }
            }
        }
        func read(_ endpoint: DFUEndpoint) async throws(DFUTransportError) -> [UInt8] { [] }
        func nextNotification(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification {
            guard let bytes = notifications.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { throw .timedOut }
            return DFUNotification(endpoint: .smp, bytes: bytes)
        }
        func waitForDisconnection(within timeout: Duration) async -> Bool {
            // A requested reset happens here: the device drops the link and MCUboot swaps.
            server.withLock { if $0.resetRequested { $0.reset() } }
            return true
        }
        func disconnect() async {}
    }

    @Test func theRunnerLoopDrivesATestResetConfirmUpdate() async throws {
        let server = SMPUploadMachineTests.server(for: [Self.image])
        let transport = ServerTransport(server)
        let runner = DFURunner(transport: transport, clock: ContinuousClock())
        let report = try await runner.update(SMPUploadPlan(images: [Self.image]), device: .address(SMPUploadMachineTests.peer.address))
        #expect(report.bytesSent == Self.image.bytes.count)
        // The swap needed a reset, and no link was lost.
        #expect(report.reconnections == 0)
        let running = transport.server.withLock { $0.primary[0] }
        #expect(running == .init(hash: Self.image.imageHash, version: "2.0.0", confirmed: true))
    }
}
