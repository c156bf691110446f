@testable import DFUCore
import Synchronization
import Testing

/// The runner's own machine loop (`DFURunner.drive`) carrying the SMP machine's actions over a
/// transport whose device is ``ScriptedSMPServer``: the actions need nothing the loop lacks. The
/// plan is fixed here because the protocol's `init(_ setup:)` has no way to pass one (see
/// ``SMPUploadMachine``); this adapter exists only in the tests.
@Suite struct SMPRunnerLoopTests {
    static let image = SMPUploadMachineTests.image(30_000, seed: 21)

    struct FixedPlanSMPMachine: DFUProtocolMachine {
        var inner: SMPUploadMachine
        init(_ setup: DFUMachineSetup) { inner = SMPUploadMachine(setup, plan: SMPUploadPlan(images: [SMPRunnerLoopTests.image])) }
        var step: DFUStep { inner.step }
        mutating func handle(_ event: DFUMachineEvent) -> DFUMachineAction { inner.handle(event) }
    }

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
        var context = DFURunner<ServerTransport, ContinuousClock>.UpdateContext(
            start: ContinuousClock().now, totalParts: 1, names: DFUAlternativeNameGenerator(seed: 1))
        let first = try await runner.drive(FixedPlanSMPMachine(SMPUploadMachineTests.setup()), context: &context)
        #expect(first == .restart)
        let second = try await runner.drive(FixedPlanSMPMachine(SMPUploadMachineTests.setup(restarts: 1)), context: &context)
        #expect(second == .completed)
        let running = transport.server.withLock { $0.primary[0] }
        #expect(running == .init(hash: Self.image.imageHash, version: "2.0.0", confirmed: true))
    }
}
