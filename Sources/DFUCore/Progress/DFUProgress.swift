/// One progress report: where the update is, how much is sent, how fast.
public struct DFUProgress: Sendable, Hashable {
    /// The phase.
    public var state: DFUState
    /// The part being sent, counting from 1.
    public var part: Int
    /// How many parts will be sent.
    public var totalParts: Int
    /// Firmware bytes of this part confirmed sent.
    public var bytesSent: Int
    /// Firmware bytes of this part.
    public var totalBytes: Int
    /// Bytes per second over the last two seconds or so (0 until that could be measured).
    public var currentSpeed: Double
    /// Bytes this run sent of the part over the time they took (0 until that could be measured).
    public var averageSpeed: Double
    /// The byte of the part at which this connection's transfer began: more than 0 when it resumed
    /// what the device already held.
    public var transferStart = 0
    /// How the SMP upload frames its requests over the writes, once it has started (nil otherwise).
    public var smpFraming: SMPFraming?
    /// SMP: where each image of the upload stands as far as the engine knows (nil: not an SMP upload, or nothing
    /// known yet).
    public var smpImages: [SMPImageReport]?
    /// On an interrupted Secure upload's `aborted` progress: whether the bootloader accepted Abort, as the machine
    /// learnt from its answer (nil: no Abort was sent).
    public var abortAccepted: Bool?

    /// Makes a report.
    public init(state: DFUState, part: Int, totalParts: Int, bytesSent: Int, totalBytes: Int,
                currentSpeed: Double = 0, averageSpeed: Double = 0) {
        self.state = state
        self.part = part
        self.totalParts = totalParts
        self.bytesSent = bytesSent
        self.totalBytes = totalBytes
        self.currentSpeed = currentSpeed
        self.averageSpeed = averageSpeed
    }

    /// Whole percent of this part, 0–100.
    public var percent: Int { totalBytes == 0 ? 100 : bytesSent * 100 / totalBytes }
}
