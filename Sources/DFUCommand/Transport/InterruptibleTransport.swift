import DFUCore
import Synchronization

/// A ``DFUTransport`` that ends the update at its next call once Ctrl-C or SIGTERM arrived: when
/// connected to a Secure bootloader it sends Abort (SDK 15 and later reset; older ones ignore
/// it), then drops the link, and from then on every call fails as ``DFUTransportError/interrupted``,
/// which the engine ends the update on without reconnecting. Doing this in the transport, rather
/// than by cancelling the task, keeps the link usable for the Abort request itself.
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

    /// Whether a Secure bootloader accepted the Abort the interrupt sent: from SDK 15 on it answers
    /// success and resets, dropping the object it was receiving; SDK 12-14 bootloaders answer
    /// "op code not supported" and keep it (nRF5 SDK nrf_dfu_req_handler.c, the Abort op code).
    var abortAccepted: Bool { state.abortAccepted }

    /// How long to wait for the answer to Abort.
    static let abortAnswerTimeout: Duration = .milliseconds(500)

    /// Once interrupted: Abort (first time, Secure bootloader only), disconnect, and fail.
    private func stopIfInterrupted() async throws(DFUTransportError) {
        guard interrupts.isInterrupted else { return }
        let (first, secure) = state.stop()
        if first {
            if secure, (try? await base.write(SecureDFURequest.abort.bytes, to: .secureControlPoint, type: .withResponse)) != nil {
                // Receipts still on their way may come first; the answer is Response (0x60), Abort (0x0C), result.
                for _ in 0..<8 {
                    guard let answer = try? await base.nextNotification(within: Self.abortAnswerTimeout) else { break }
                    guard answer.endpoint == .secureControlPoint, answer.bytes.starts(with: [0x60, 0x0C]) else { continue }
                    if answer.bytes.count >= 3, answer.bytes[2] == 0x01 { state.acceptedAbort() }
                    break
                }
            }
            await base.disconnect()
        }
        throw .interrupted
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

    private let accepted = Mutex(false)

    var abortAccepted: Bool { accepted.withLock { $0 } }

    func acceptedAbort() { accepted.withLock { $0 = true } }

    func connected(secureBootloader: Bool) { value.withLock { $0.inSecureBootloader = secureBootloader } }

    /// Marks the link stopped; returns whether this was the first time and whether it is a Secure bootloader.
    func stop() -> (first: Bool, secure: Bool) {
        value.withLock { state in
            defer { state.stopped = true }
            return (!state.stopped, state.inSecureBootloader)
        }
    }
}
