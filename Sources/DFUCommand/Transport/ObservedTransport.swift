import DFUCore

/// A ``DFUTransport`` that forwards to another one and reports what passes through it:
/// the packet trace of `-vv`, and the time of the first byte sent.
struct ObservedTransport: DFUTransportDecorator {
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

    func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError) {
        observe(.write(endpoint, bytes))
        try await base.write(bytes, to: endpoint, type: type)
    }

    func writePackets(_ packets: [[UInt8]], to endpoint: DFUEndpoint) async throws(DFUTransportError) {
        for packet in packets { observe(.write(endpoint, packet)) }
        try await base.writePackets(packets, to: endpoint)
    }

    func nextNotification(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification {
        let notification = try await base.nextNotification(within: timeout)
        observe(.notification(notification))
        return notification
    }

    func disconnect() async {
        await base.disconnect()
        observe(.disconnected)
    }
}
