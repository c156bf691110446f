/// Measures how fast one part's firmware goes out: the current speed over a trailing window and
/// the average over the bytes this run actually sent, across the connections a part may need.
///
/// No figure is given until the transfer has run for ``window``: a rate over a few packets says
/// more about buffering than about the link. Bytes the device already held (a resumed object) are
/// never counted as sent.
struct TransferMeter: Sendable {
    /// The shortest span a speed is measured over.
    static let window: Duration = .seconds(2)

    private struct Sample {
        var at: Duration
        var bytes: Int
    }

    /// This connection's transfer: when it began and at which byte of the part.
    private var session: Sample?
    private var samples: [Sample] = []
    private var finishedBytes = 0
    private var finishedTime: Duration = .zero

    /// Starts measuring a transfer (a new connection, or a restart) at `time`, from byte `offset` of
    /// the part; the previous transfer's bytes and time stay in the average.
    mutating func begin(at time: Duration, offset: Int) {
        end()
        session = Sample(at: time, bytes: offset)
        samples = [Sample(at: time, bytes: offset)]
    }

    /// The byte of the part the transfer being measured began at.
    var start: Int { session?.bytes ?? 0 }

    /// Whether a transfer is being measured.
    var isMeasuring: Bool { session != nil }

    /// Records that the part's first `bytes` bytes are out at `time`.
    mutating func record(at time: Duration, bytes: Int) {
        guard session != nil else { return }
        samples.append(Sample(at: time, bytes: bytes))
        // Keep one sample at least a window old, and the ones after it.
        while samples.count > 2, time - samples[1].at >= Self.window { samples.removeFirst() }
    }

    /// Bytes per second over the last ``window`` or a little more; 0 until a window has passed.
    var current: Double {
        guard let first = samples.first, let last = samples.last, last.at - first.at >= Self.window else { return 0 }
        return Double(last.bytes - first.bytes) / (last.at - first.at).dfuSecondsValue
    }

    /// Bytes sent by this run over the time they took; 0 until a window's worth of transfer.
    var average: Double {
        let time = transferTime
        guard time >= Self.window else { return 0 }
        return Double(bytesSent) / time.dfuSecondsValue
    }

    /// Bytes of the part sent by this run, over every connection.
    var bytesSent: Int {
        guard let session, let last = samples.last else { return finishedBytes }
        return finishedBytes + max(0, last.bytes - session.bytes)
    }

    /// Time the part's bytes were flowing, over every connection (not the reconnections between).
    var transferTime: Duration {
        guard let session, let last = samples.last else { return finishedTime }
        return finishedTime + (last.at - session.at)
    }

    /// Ends the transfer being measured (the link is gone); its bytes and time stay in the average.
    mutating func end() {
        finishedBytes = bytesSent
        finishedTime = transferTime
        session = nil
        samples = []
    }
}
