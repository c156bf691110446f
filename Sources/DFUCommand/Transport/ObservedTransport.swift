import DFUCore

/// A ``DFUTransport`` that forwards to another one and reports what passes through it:
/// the packet trace of `-vv`, and the time of the first byte sent.
struct ObservedTransport: DFUTransport {
    /// The real link.
    let base: any DFUTransport
    /// Called for every connection, write, notification and disconnection.
    let observe: @Sendable (TransportObservation) -> Void

    func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer {
        do {
            let peer = try await base.connect(parameters)
            observe(.connected(peer))
            return peer
        } catch {
            observe(.connectFailed(error))
            throw error
        }
    }

    func enableNotifications(on endpoint: DFUEndpoint) async throws(DFUTransportError) {
        try await base.enableNotifications(on: endpoint)
    }

    func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError) {
        observe(.write(endpoint, bytes))
        try await base.write(bytes, to: endpoint, type: type)
    }

    func read(_ endpoint: DFUEndpoint) async throws(DFUTransportError) -> [UInt8] {
        try await base.read(endpoint)
    }

    func nextNotification(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification {
        let notification = try await base.nextNotification(within: timeout)
        observe(.notification(notification))
        return notification
    }

    func waitForDisconnection(within timeout: Duration) async -> Bool {
        await base.waitForDisconnection(within: timeout)
    }

    func disconnect() async {
        await base.disconnect()
        observe(.disconnected)
    }
}
