/// Everything one `make bench` run measured, as written to the JSON file.
public struct BenchReport: Sendable, Hashable, Codable {
    /// A figure that was not measured, and why.
    public struct Skipped: Sendable, Hashable, Codable {
        /// "2" or "3".
        public var figure: String
        /// What it needs.
        public var reason: String
    }

    /// The machine and versions.
    public var machine: MachineInfo
    /// Figure 1 rows.
    public var link: [LinkFigureRow] = []
    /// Figure 1b rows (flash slower than assumed).
    public var slowFlash: [SlowFlashRow] = []
    /// Figure 2 rows.
    public var host: [HostCostRow] = []
    /// Figure 2's start-up row: `dfu --version`.
    public var startup: StartupCost?
    /// Figure 4 rows.
    public var scale: [ScaleFigureRow] = []
    /// Figure 5 rows (modelled SMP transfers).
    public var smp: [SMPFigureRow] = []
    /// Figure 6 (SMP through dfu-sim: `dfu` and smpmgr side by side).
    public var smpClients: SMPClientsFigureResult?
    /// Figure 7 (`dfu` and the peer client nrfdfu side by side through dfu-sim).
    public var peerClient: PeerClientFigureResult?
    /// Figures not measured.
    public var skipped: [Skipped] = []
    /// Wall time of the whole benchmark, seconds.
    public var benchSeconds = 0.0

    /// An empty report for `machine`.
    public init(machine: MachineInfo) { self.machine = machine }
}
