/// The port between the DFU engine and a Bluetooth LE stack (BlueZ, or the simulator).
///
/// A transport holds at most one connection. All timing that depends on the radio
/// (scan, connect, notification timeouts) is applied by the transport, so a simulated
/// transport can model it in virtual time and a real one in wall-clock time.
public protocol DFUTransport: Sendable {
    /// Scans for a device matching the selector, connects, discovers services and subscribes nothing yet.
    /// Throws `.deviceNotFound` after the scan timeout, `.timedOut` after the connect timeout.
    func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer

    /// Enables notifications (or indications, whichever the characteristic offers) on an endpoint.
    func enableNotifications(on endpoint: DFUEndpoint) async throws(DFUTransportError)

    /// Writes a value; with response it returns after the ATT acknowledgement,
    /// without response after the transport accepted it for sending (paced to the link).
    func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError)

    /// Writes packets without response, in order, as ``write(_:to:type:)`` with `.withoutResponse` would one by one
    /// (the default does exactly that): a transport that can hand several to its stack in one step does, so that a
    /// burst of packets crosses the layers above it once. Throws the first failure; the packets after it are not sent.
    func writePackets(_ packets: [[UInt8]], to endpoint: DFUEndpoint) async throws(DFUTransportError)
    /// Reads a characteristic value.
    func read(_ endpoint: DFUEndpoint) async throws(DFUTransportError) -> [UInt8]

    /// The next notification or indication, in arrival order: the pull side of the stream.
    /// Throws `.timedOut` when none arrives within `timeout`, `.disconnected` when the link drops first.
    func nextNotification(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification

    /// Waits for the device to drop the link (after activation or a jump); false if it is still up after `timeout`.
    func waitForDisconnection(within timeout: Duration) async -> Bool

    /// Drops the link (no-op when already down). Pending notifications are discarded.
    func disconnect() async
}

extension DFUTransport {
    public func writePackets(_ packets: [[UInt8]], to endpoint: DFUEndpoint) async throws(DFUTransportError) {
        for packet in packets {
            try await write(packet, to: endpoint, type: .withoutResponse)
        }
    }
}
