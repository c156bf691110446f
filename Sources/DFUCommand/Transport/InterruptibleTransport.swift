import DFUCore

/// A ``DFUTransport`` that opens no new connection once Ctrl-C or SIGTERM arrived: the interrupted engine must not
/// reconnect (or connect to the bootloader an application was switched into), and every other call passes through,
/// so the protocol machine's own goodbye (Secure Abort and its answer, Legacy Reset) still reaches the device. The
/// engine learns of the interrupt from its task's cancellation (``DFURunner``'s drive loop).
struct InterruptibleTransport: DFUTransportDecorator {
    /// The link.
    let base: any DFUTransport
    /// Where the interrupt arrives.
    let interrupts: InterruptController

    func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer {
        guard !interrupts.isInterrupted else { throw .interrupted }
        return try await base.connect(parameters)
    }
}
