/// One row of figure 4: N devices updated at once, in one process, on the link model.
public struct ScaleFigureRow: Sendable, Hashable, Codable {
    /// Devices updated at once.
    public var devices: Int
    /// "one adapter" (the radio's time shared between the connections) or "one adapter each".
    public var adapters: String
    /// Modelled time until the last device is done, seconds.
    public var modelledSeconds: Double
    /// N × the single-device time, seconds.
    public var serialSeconds: Double
    /// serialSeconds / modelledSeconds.
    public var speedUp: Double
    /// The slowest device's firmware throughput, B/s.
    public var slowestDeviceBytesPerSecond: Double
    /// Host wall time of the whole simulation, seconds.
    public var hostWallSeconds: Spread
    /// Host user + system CPU of the simulating process, seconds.
    public var hostCPUSeconds: Spread
    /// Peak RSS of the simulating process, MB.
    public var peakRSSMegabytes: Spread
}
