/// One row of figure 1: a modelled upload against the model's lower bound.
public struct LinkFigureRow: Sendable, Hashable, Codable {
    /// Application size in KB (1000 bytes).
    public var kilobytes: Int
    /// "1M" or "2M".
    public var phy: String
    /// Connection interval in ms.
    public var connectionIntervalMilliseconds: Double
    /// ATT MTU.
    public var mtu: Int
    /// PRN interval.
    public var prn: Int
    /// Modelled time with the default options, seconds (virtual time: identical in every run).
    public var seconds: Spread
    /// The model's lower bound, seconds.
    public var boundSeconds: Double
    /// bound / actual.
    public var ratio: Double
    /// What limits the bound: "link" or "flash".
    public var limitedBy: String
    /// Packets dropped by the bootloader with the default options.
    public var lostPackets: Int
    /// Whether the default run lowered its PRN after a loss.
    public var fellBack: Bool
    /// The same upload without flash pacing (the engine's behaviour before it): seconds, lost packets.
    public var unpacedSeconds: Double
    /// Packets lost without flash pacing.
    public var unpacedLostPackets: Int
    /// The fastest loss-free settings tried, when faster than the defaults by more than 1 %; nil otherwise.
    public var better: String?
    /// Their time, seconds.
    public var betterSeconds: Double?
    /// Host wall time of one simulated upload, ms (how long the model takes to run, not the upload).
    public var hostMilliseconds: Spread
}
