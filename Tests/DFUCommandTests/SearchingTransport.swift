import DFUCommand
import DFUCore

/// A link on which the device never turns up: `connect` scans (sleeps) for the whole scan timeout
/// on the wall clock, as BlueZ does when nothing matching advertises, then fails; a cancelled
/// task ends the wait early, as cancelling the BlueZ scan does.
struct SearchingTransport: DFUTransport {
    func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer {
        try? await Task.sleep(for: parameters.scanTimeout)
        throw .deviceNotFound
    }

    func enableNotifications(on endpoint: DFUEndpoint) async throws(DFUTransportError) { throw .disconnected }
    func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError) { throw .disconnected }
    func read(_ endpoint: DFUEndpoint) async throws(DFUTransportError) -> [UInt8] { throw .disconnected }
    func nextNotification(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification { throw .disconnected }
    func waitForDisconnection(within timeout: Duration) async -> Bool { true }
    func disconnect() async {}

    /// A provider whose links never find their device and whose scan hears `heard` at once but
    /// keeps listening for `timeout` (ended early by cancellation, as a BlueZ scan is).
    static func provider(heard: [Advertisement] = []) -> TransportProvider {
        TransportProvider { _, _ in
            TransportSession(transport: SearchingTransport(), clock: ContinuousClock())
        } scan: { _, timeout in
            try? await Task.sleep(for: timeout)
            return heard
        }
    }
}
