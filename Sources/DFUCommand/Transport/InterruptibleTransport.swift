import DFUCore

/// A ``DFUTransport`` that opens no new connection once Ctrl-C or SIGTERM arrived: the interrupted engine must not
/// reconnect (or connect to the bootloader an application was switched into), and every other call passes through,
/// so the protocol machine's own goodbye (Secure Abort and its answer, Legacy Reset) still reaches the device. The
/// engine learns of the interrupt from its task's cancellation (``DFURunner``'s drive loop).
struct InterruptibleTransport: DFUTransport {
    /// The link.
    let base: any DFUTransport
    /// Where the interrupt arrives.
    let interrupts: InterruptController

    func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer {
        guard !interrupts.isInterrupted else { throw .interrupted }
        return try await base.connect(parameters)
    }

    func enableNotifications(on endpoint: DFUEndpoint) async throws(DFUTransportError) {
        try await base.enableNotifications(on: endpoint)
    }

    func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError) {
        try await base.write(bytes, to: endpoint, type: type)
    }

    func read(_ endpoint: DFUEndpoint) async throws(DFUTransportError) -> [UInt8] {
        try await base.read(endpoint)
    }

    func nextNotification(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification {
        try await base.nextNotification(within: timeout)
    }

    func waitForDisconnection(within timeout: Duration) async -> Bool {
        await base.waitForDisconnection(within: timeout)
    }

    func disconnect() async {
        await base.disconnect()
    }
}
