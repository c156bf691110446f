public import DFUFormats
/// What an update did, for summaries and benchmarks.
public struct DFUUpdateReport: Sendable, Hashable {
    /// Parts sent to completion, in order.
    public var partsSent: [PartKind] = []
    /// System parts the bootloader rejected before the application was sent instead.
    public var partsSkipped: [PartKind] = []
    /// Firmware bytes of the parts sent.
    public var bytesSent = 0
    /// Firmware bytes this run actually sent (bytes a resumed object already held are not counted).
    public var bytesTransferred = 0
    /// Time firmware was flowing, the gaps between connections and parts left out.
    public var transferTime: Duration = .zero
    /// Time from the first connection to the last reset, on the runner's clock.
    public var elapsed: Duration = .zero
    /// Reconnections after a lost link (resumes).
    public var reconnections = 0
    /// Whether the PRN was forced to 1 after a detected loss.
    public var fellBackToPRN1 = false
    /// How the last SMP upload framed its requests over the writes (nil: no SMP upload chunk was sent).
    public var smpFraming: SMPFraming?
    /// SMP: where each image of the upload stands at the end (empty for an nRF5 update).
    public var smpImages: [SMPImageReport] = []

    /// An empty report.
    public init() {}

    /// Bytes actually sent per second of transfer, or nil when the transfer was too short to measure.
    public var transferSpeed: Double? {
        guard transferTime >= TransferMeter.window else { return nil }
        return Double(bytesTransferred) / transferTime.dfuSecondsValue
    }

    /// Whether the device runs what it was sent, which the result line and `--json` call "updated": a finished
    /// nRF5 update always does; an SMP update only once every image it sent runs confirmed (an image left
    /// marked, or running in test mode, was only "uploaded").
    public var isUpdated: Bool {
        smpImages.allSatisfy { $0.state == .confirmed }
    }

    /// Average firmware throughput in bytes per second.
    public var throughput: Double {
        let seconds = elapsed.dfuSecondsValue
        return seconds > 0 ? Double(bytesSent) / seconds : 0
    }
}

extension Duration {
    /// The duration in seconds as a Double.
    public var dfuSecondsValue: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
