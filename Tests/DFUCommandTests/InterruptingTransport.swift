import DFUCommand
import DFUCore
import DFUSimulator
import Synchronization

/// A simulated link that interrupts the run after a number of packet bytes (Packet characteristics, or the
/// SMP characteristic), or as its Nth connection is made, or once an SMP request of a given group and command
/// was written, as Ctrl-C would.
final class InterruptingTransport: DFUTransport {
    /// When to interrupt.
    enum Trigger: Sendable {
        /// After this many packet bytes.
        case packetBytes(Int)
        /// As the Nth connection (from 1) is made: the connection is made, the next request is not.
        case connection(Int)
        /// Once a frame of this SMP group and command was written (the header's group, bytes 4–5, and id, byte 7).
        case smpRequest(group: UInt16, command: UInt8)
    }

    let base: SimulatedTransport
    let trigger: Trigger
    let interrupts: InterruptController
    let sent = Mutex(0)
    let connections = Mutex(0)

    init(base: SimulatedTransport, trigger: Trigger, interrupts: InterruptController) {
        self.base = base
        self.trigger = trigger
        self.interrupts = interrupts
    }

    convenience init(base: SimulatedTransport, limit: Int, interrupts: InterruptController) {
        self.init(base: base, trigger: .packetBytes(limit), interrupts: interrupts)
    }

    func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer {
        let count = connections.withLock { count in
            count += 1
            return count
        }
        if case .connection(let nth) = trigger, count == nth { interrupts.interrupt() }
        return try await base.connect(parameters)
    }
    func enableNotifications(on endpoint: DFUEndpoint) async throws(DFUTransportError) {
        try await base.enableNotifications(on: endpoint)
    }
    func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError) {
        try await base.write(bytes, to: endpoint, type: type)
        if case .smpRequest(let group, let command) = trigger, endpoint == .smp, bytes.count >= 8,
           UInt16(bytes[4]) << 8 | UInt16(bytes[5]) == group, bytes[7] == command {
            interrupts.interrupt()
        }
        guard case .packetBytes(let limit) = trigger else { return }
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
