/// What starting `dfu` costs: `dfu --version`, measured by `dfu-bench-rusage` (median of many runs).
public struct StartupCost: Sendable, Hashable, Codable {
    /// User + system CPU, ms (goal ≤ 10).
    public var cpuMilliseconds: Spread
    /// Peak RSS, MB (goal ≤ 12).
    public var peakRSSMegabytes: Spread
    /// How many runs.
    public var runs: Int
}
