import DFUCommand
import DFUCore
import DFUSimulator
import Synchronization

/// A simulated link that interrupts the run after a number of packet bytes (Packet characteristics, or the
/// SMP characteristic), as Ctrl-C would.
final class InterruptingTransport: DFUTransport {
    let base: SimulatedTransport
    let limit: Int
    let interrupts: InterruptController
    let sent = Mutex(0)

    init(base: SimulatedTransport, limit: Int, interrupts: InterruptController) {
        self.base = base
        self.limit = limit
        self.interrupts = interrupts
    }

    func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer {
        try await base.connect(parameters)
    }
    func enableNotifications(on endpoint: DFUEndpoint) async throws(DFUTransportError) {
        try await base.enableNotifications(on: endpoint)
    }
    func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError) {
        try await base.write(bytes, to: endpoint, type: type)
        guard endpoint == .securePacket || endpoint == .legacyPacket || endpoint == .smp else { return }
        let total = sent.withLock { sent in
            sent += bytes.count
            return sent
        }
        if total >= limit { interrupts.interrupt() }
    }
    func read(_ endpoint: DFUEndpoint) async throws(DFUTransportError) -> [UInt8] { try await base.read(endpoint) }
    func nextNotification(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification {
        try await base.nextNotification(within: timeout)
    }
    func waitForDisconnection(within timeout: Duration) async -> Bool { await base.waitForDisconnection(within: timeout) }
    func disconnect() async { await base.disconnect() }
}
