import DFUCore
import Synchronization

/// A ``DFUTransport`` that ends the update at its next call once Ctrl-C or SIGTERM arrived: when
/// connected to a Secure bootloader it sends Abort (SDK 15 and later reset; older ones ignore
/// it), then drops the link, and from then on every call fails as a lost link, so the engine
/// stops without reconnecting. Doing this in the transport, rather than by cancelling the task,
/// keeps the link usable for the Abort request itself.
struct InterruptibleTransport: DFUTransport {
    /// The link.
    let base: any DFUTransport
    /// Where the interrupt arrives.
    let interrupts: InterruptController
    private let state = SharedState()

    /// Wraps `base`.
    init(base: any DFUTransport, interrupts: InterruptController) {
        self.base = base
        self.interrupts = interrupts
    }

    /// Once interrupted: Abort (first time, Secure bootloader only), disconnect, and fail.
    private func stopIfInterrupted() async throws(DFUTransportError) {
        guard interrupts.isInterrupted else { return }
        let (first, secure) = state.stop()
        if first {
            if secure { try? await base.write(SecureDFURequest.abort.bytes, to: .secureControlPoint, type: .withResponse) }
            await base.disconnect()
        }
        throw .disconnected
    }

    func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer {
        try await stopIfInterrupted()
        let peer = try await base.connect(parameters)
        state.connected(secureBootloader: peer.endpoints.contains(.secureControlPoint) && peer.endpoints.contains(.securePacket))
        return peer
    }

    func enableNotifications(on endpoint: DFUEndpoint) async throws(DFUTransportError) {
        try await stopIfInterrupted()
        try await base.enableNotifications(on: endpoint)
    }

    func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError) {
        try await stopIfInterrupted()
        try await base.write(bytes, to: endpoint, type: type)
    }

    func read(_ endpoint: DFUEndpoint) async throws(DFUTransportError) -> [UInt8] {
        try await stopIfInterrupted()
        return try await base.read(endpoint)
    }

    func nextNotification(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification {
        try await stopIfInterrupted()
        return try await base.nextNotification(within: timeout)
    }

    func waitForDisconnection(within timeout: Duration) async -> Bool {
        await base.waitForDisconnection(within: timeout)
    }

    func disconnect() async {
        await base.disconnect()
    }
}

/// The mutable part of ``InterruptibleTransport``, shared by its copies.
private final class SharedState: Sendable {
    private let value = Mutex((inSecureBootloader: false, stopped: false))

    func connected(secureBootloader: Bool) { value.withLock { $0.inSecureBootloader = secureBootloader } }

    /// Marks the link stopped; returns whether this was the first time and whether it is a Secure bootloader.
    func stop() -> (first: Bool, secure: Bool) {
        value.withLock { state in
            defer { state.stopped = true }
            return (!state.stopped, state.inSecureBootloader)
        }
    }
}
