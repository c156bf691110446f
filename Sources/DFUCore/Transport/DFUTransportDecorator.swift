/// A ``DFUTransport`` that wraps another: every call it does not implement itself passes through to ``base``
/// unchanged. A decorator implements only what it adds (a lock taken on connect, a refusal to reconnect, an
/// observation of what passes). A burst of packets passes as one ``DFUTransport/writePackets(_:to:)`` call, so a
/// decorator that implements `write` implements `writePackets` too.
public protocol DFUTransportDecorator: DFUTransport {
    /// The transport the calls pass through to.
    var base: any DFUTransport { get }
}

extension DFUTransportDecorator {
    public func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer {
        try await base.connect(parameters)
    }

    public func enableNotifications(on endpoint: DFUEndpoint) async throws(DFUTransportError) {
        try await base.enableNotifications(on: endpoint)
    }

    public func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError) {
        try await base.write(bytes, to: endpoint, type: type)
    }

    public func writePackets(_ packets: [[UInt8]], to endpoint: DFUEndpoint) async throws(DFUTransportError) {
        try await base.writePackets(packets, to: endpoint)
    }

    public func read(_ endpoint: DFUEndpoint) async throws(DFUTransportError) -> [UInt8] {
        try await base.read(endpoint)
    }

    public func nextNotification(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification {
        try await base.nextNotification(within: timeout)
    }

    public func waitForDisconnection(within timeout: Duration) async -> Bool {
        await base.waitForDisconnection(within: timeout)
    }

    public func disconnect() async {
        await base.disconnect()
    }
}
