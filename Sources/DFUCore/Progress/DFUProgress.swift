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
    /// Bytes per second since the previous report of this part (0 when unknown).
    public var currentSpeed: Double
    /// Bytes per second since the part's upload started (0 when unknown).
    public var averageSpeed: Double

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
