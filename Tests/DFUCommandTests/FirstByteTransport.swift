import DFUCore

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
