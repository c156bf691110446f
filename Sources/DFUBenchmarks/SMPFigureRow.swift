/// One row of figure 5: a modelled SMP transfer to a simulated Zephyr/MCUboot target.
public struct SMPFigureRow: Sendable, Hashable, Codable {
    /// Image size in bytes.
    public var imageBytes: Int
    /// The connection interval, milliseconds.
    public var intervalMilliseconds: Int
    /// "before" (the image's length erased at the first chunk) or "during" (each page as the upload reaches it).
    public var erase: String
    /// Transfer seconds with the machine's window (buf_count − 2 requests in flight).
    public var windowedSeconds: Double
    /// The most requests the windowed client had in flight.
    public var window: Int
    /// Transfer seconds with one request at a time, on the same model.
    public var oneAtATimeSeconds: Double
    /// The model's bound on the transfer (link and flash), seconds.
    public var boundSeconds: Double
    /// "flash" or "link".
    public var limitedBy: String
    /// Requests the target dropped (no free buffer) in the windowed run.
    public var dropped: Int

    /// Bound over windowed: 1 when the transfer reaches the bound.
    public var boundRatio: Double { windowedSeconds > 0 ? boundSeconds / windowedSeconds : 0 }
    /// One-at-a-time over windowed.
    public var speedUp: Double { windowedSeconds > 0 ? oneAtATimeSeconds / windowedSeconds : 0 }
}
