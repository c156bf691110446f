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
    /// Where the engine runs when it drives this link (`withTaskExecutorPreference`): the thread the
    /// transport's events arrive on, so they resume the engine without waking another thread; nil
    /// for the shared pool.
    public var executor: (any TaskExecutor)?

    /// Makes a session.
    public init(transport: any DFUTransport, clock: any Clock<Duration>, executor: (any TaskExecutor)? = nil,
                close: @escaping @Sendable () async -> Void = {}) {
        self.transport = transport
        self.clock = clock
        self.executor = executor
        self.close = close
    }
}
