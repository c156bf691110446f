/// One row of figure 1b: a device whose flash is slower than the pacer assumes.
public struct SlowFlashRow: Sendable, Hashable, Codable {
    /// How many times the datasheet maxima the simulated flash takes.
    public var factor: Int
    /// The ATT MTU (247: 17 full packets per object; 23: 205 packets of 20 bytes, more than the 17 buffers).
    public var mtu = 247
    /// Modelled seconds with the defaults (flash pacing adapting to the loss); nil when the upload failed.
    public var seconds: Double?
    /// Packets lost with the defaults.
    public var lostPackets: Int
    /// Whether the PRN fell back.
    public var fellBack: Bool
    /// Modelled seconds without flash pacing; nil when the upload failed.
    public var unpacedSeconds: Double?
    /// Packets lost without flash pacing.
    public var unpacedLostPackets: Int
    /// Why the upload with the defaults failed, if it did.
    public var failure: String?
    /// Why the upload without pacing failed, if it did.
    public var unpacedFailure: String?
    /// The flash's own time for the image (bank preparation, erases, writes), seconds: the floor.
    public var flashSeconds: Double
}
