import DFUCore
import DFUSimulator

/// A simulated link slowed down to wall-clock time (divided by `speed`), so a simulated upload
/// looks like a real one on a terminal: the live line moves, Ctrl-C arrives mid-upload.
struct PacedTransport: DFUTransport {
    /// The simulated link.
    let base: SimulatedTransport
    /// How many times faster than the modelled air time.
    let speed: Double
    /// When the run began, on the wall clock.
    let start: ContinuousClock.Instant

    /// Waits until the wall clock catches up with the simulated time.
    private func catchUp() async {
        let target = base.clock.elapsed / speed
        try? await Task.sleep(until: start.advanced(by: target), clock: ContinuousClock())
    }

    func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer {
        let result: Result<DFUPeer, DFUTransportError>
        do { result = .success(try await base.connect(parameters)) } catch { result = .failure(error) }
        await catchUp()
        return try result.get()
    }

    func enableNotifications(on endpoint: DFUEndpoint) async throws(DFUTransportError) {
        try await base.enableNotifications(on: endpoint)
    }

    func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError) {
        try await base.write(bytes, to: endpoint, type: type)
        await catchUp()
    }

    func read(_ endpoint: DFUEndpoint) async throws(DFUTransportError) -> [UInt8] { try await base.read(endpoint) }

    func nextNotification(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification {
        let result: Result<DFUNotification, DFUTransportError>
        do { result = .success(try await base.nextNotification(within: timeout)) } catch { result = .failure(error) }
        await catchUp()
        return try result.get()
    }

    func waitForDisconnection(within timeout: Duration) async -> Bool {
        let dropped = await base.waitForDisconnection(within: timeout)
        await catchUp()
        return dropped
    }

    func disconnect() async { await base.disconnect() }
}
