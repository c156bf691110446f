/// How long the simulated nRF5 flash takes; the defaults are nRF52840 datasheet maxima.
public struct FlashTimings: Sendable, Hashable {
    /// Erasing one 4 KB page (t_ERASEPAGE, 85 ms).
    public var pageErase: Duration = .milliseconds(85)
    /// Writing one 32-bit word (t_WRITE, 41 µs).
    public var wordWrite: Duration = .microseconds(41)
    /// What the Secure bootloader does after the first data Create before it drains packets
    /// (bank preparation); covered by the client's 400 ms first-object delay.
    public var firstObjectPreparation: Duration = .milliseconds(300)
    /// Hashing the received image, per KB, at the last Execute.
    public var hashPerKilobyte: Duration = .microseconds(200)

    /// The defaults.
    public init() {}

    /// Time to write `bytes` bytes (rounded up to whole words).
    public func writeTime(bytes: Int) -> Duration { wordWrite * ((bytes + 3) / 4) }
}
