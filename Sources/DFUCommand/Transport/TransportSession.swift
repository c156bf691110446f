public import DFUCore

/// One open link to a device, with the clock its timing runs on.
public struct TransportSession: Sendable {
    /// The link.
    public var transport: any DFUTransport
    /// The clock the engine waits on and the progress output measures with
    /// (`ContinuousClock` for BlueZ, a virtual clock for simulated devices).
    public var clock: any Clock<Duration>
    /// Called once when the command is done with the link (releases adapters, fds, bus names).
    public var close: @Sendable () async -> Void

    /// Makes a session.
    public init(transport: any DFUTransport, clock: any Clock<Duration>, close: @escaping @Sendable () async -> Void = {}) {
        self.transport = transport
        self.clock = clock
        self.close = close
    }
}
