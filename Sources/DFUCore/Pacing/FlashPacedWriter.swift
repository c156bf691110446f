/// The write path of one connection: frames go to the transport in order, and paced ones (firmware packets
/// for a Secure bootloader's flash) are each held back until the ``FlashPacer`` model says the bootloader
/// has a free receive buffer for them.
///
/// The runner hands it every `.write` a machine asks for and every `.flash` hint a machine reports; with
/// pacing off (`--no-pacing`) it writes at once and ignores the hints.
struct FlashPacedWriter<Transport: DFUTransport, WriterClock: Clock>: Sendable where WriterClock.Duration == Duration {
    private let transport: Transport
    private let clock: WriterClock
    /// Model times are durations since this instant.
    private let origin: WriterClock.Instant
    private var pacer: FlashPacer?
    /// How many times the model was slowed down since the update began (earlier connections included).
    private(set) var slowdowns: Int

    /// A writer for a new connection, with the model already slowed down `slowdowns` times.
    init(transport: Transport, clock: WriterClock, pacing: FlashPacing?, slowdowns: Int) {
        self.transport = transport
        self.clock = clock
        self.origin = clock.now
        self.pacer = pacing.map { FlashPacer(pacing: $0, slowdowns: slowdowns) }
        self.slowdowns = slowdowns
    }

    private var now: Duration { origin.duration(to: clock.now) }

    /// Writes `frames` in order; when `paced`, holds each back until a buffer is free for it, and when it must
    /// wait at all, until several are, so as to wake once for several packets.
    mutating func write(_ frames: [[UInt8]], to endpoint: DFUEndpoint, type: DFUWriteType, paced: Bool)
        async throws(DFUTransportError) {
        for (index, frame) in frames.enumerated() {
            if paced, let pacer {
                let time = now
                let earliest = pacer.nextWrite(at: time, pending: frames.count - index)
                if earliest > time { try? await clock.sleep(until: origin.advanced(by: earliest), tolerance: nil) }
            }
            try await transport.write(frame, to: endpoint, type: type)
            if paced {
                let time = now
                pacer?.packetWritten(bytes: frame.count, at: time)
            }
        }
    }

    /// Updates the model with what a machine learnt of the flash.
    mutating func note(_ event: FlashPacingEvent) {
        guard pacer != nil else { return }
        let time = now
        switch event {
        case .objectCreated: pacer?.objectCreated(at: time)
        case .idle: pacer?.flashIdle(at: time)
        case .slower:
            pacer?.slowDown(at: time)
            slowdowns += 1
        }
    }
}
