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
    /// wait at all, until several are, so as to wake once for several packets. Frames without response go to the
    /// transport in bursts (``DFUTransport/writePackets(_:to:)``): all of them unpaced, and paced as many as the model
    /// has free buffers for, which the model then takes as written one after the other over the burst's time.
    mutating func write(_ frames: [[UInt8]], to endpoint: DFUEndpoint, type: DFUWriteType, paced: Bool)
        async throws(DFUTransportError) {
        guard type == .withoutResponse else {
            for frame in frames {
                await hold(pending: 1, paced: paced)
                try await transport.write(frame, to: endpoint, type: type)
                written(frame.count, paced: paced)
            }
            return
        }
        var start = frames.startIndex
        while start < frames.endIndex {
            let pending = frames.endIndex - start
            await hold(pending: pending, paced: paced)
            var count = pending
            // At least one: a sleep cut short (the update cancelled) still makes progress towards the end.
            if paced, let pacer { count = max(1, min(pending, pacer.freeBuffers(at: now))) }
            let burst = Array(frames[start..<(start + count)])
            let begun = now
            try await transport.writePackets(burst, to: endpoint)
            if paced, pacer != nil {
                // Each packet is taken as written at its share of the burst's time, in order: where a write
                // returns at once (a socket) all at about its end, where each takes the link's time (the
                // simulated radio) when it did.
                let step = (now - begun) / burst.count
                var time = begun
                for frame in burst {
                    time += step
                    pacer?.packetWritten(bytes: frame.count, at: time)
                }
            }
            start += count
        }
    }

    /// Waits, when `paced`, until the model has a buffer free for the next of `pending` packets (or several).
    private func hold(pending: Int, paced: Bool) async {
        guard paced, let pacer else { return }
        let time = now
        let earliest = pacer.nextWrite(at: time, pending: pending)
        if earliest > time { try? await clock.sleep(until: origin.advanced(by: earliest), tolerance: nil) }
    }

    /// Tells the model of a packet of `bytes` just written, when `paced`.
    private mutating func written(_ bytes: Int, paced: Bool) {
        guard paced else { return }
        let time = now
        pacer?.packetWritten(bytes: bytes, at: time)
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
