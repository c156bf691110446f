/// What one DFU client process cost the host in figure 7: its start-up, a small and a large upload through
/// `dfu-sim`, each measured by `dfu-bench-rusage` (wait4's rusage of the client process alone).
public struct UploadClientCost: Sendable, Hashable, Codable {
    /// User + system CPU of starting the client and exiting (`dfu --version`, `nrfdfu ble --help`), ms.
    public var startupMilliseconds: Spread
    /// User + system CPU of the small upload (connect, init packet, one object, exit): the fixed cost, ms.
    public var fixedCostMilliseconds: Spread
    /// The large upload's CPU less the small upload's, per MiB (2^20 bytes) of firmware more, one difference per
    /// timed run: the CPU per MiB beyond start-up and every other fixed cost, ms/MiB.
    public var cpuPerMebibyteMilliseconds: Spread
    /// Peak RSS of the client process during the large upload (ru_maxrss), MB (2^20 bytes).
    public var peakRSSMegabytes: Spread
    /// Wall time of the large upload's process, seconds.
    public var largeUploadWallSeconds: Spread
    /// Voluntary plus involuntary context switches of the large upload's process (every thread's): its wake-ups.
    public var largeUploadContextSwitches: Spread
    /// The small upload's CPU plus that of the discovery the client needs another process for first (nrfdfu:
    /// `bluetoothctl --timeout 1 scan on`), run by run, ms; nil for a client that finds the device itself (`dfu`,
    /// whose fixed cost includes its own scan) and in results from before it was measured.
    public var fixedCostWithDiscoveryMilliseconds: Spread?

    /// A cost from its figures.
    public init(startupMilliseconds: Spread, fixedCostMilliseconds: Spread, cpuPerMebibyteMilliseconds: Spread,
                peakRSSMegabytes: Spread, largeUploadWallSeconds: Spread, largeUploadContextSwitches: Spread,
                fixedCostWithDiscoveryMilliseconds: Spread? = nil)
    {
        self.fixedCostWithDiscoveryMilliseconds = fixedCostWithDiscoveryMilliseconds
        self.startupMilliseconds = startupMilliseconds
        self.fixedCostMilliseconds = fixedCostMilliseconds
        self.cpuPerMebibyteMilliseconds = cpuPerMebibyteMilliseconds
        self.peakRSSMegabytes = peakRSSMegabytes
        self.largeUploadWallSeconds = largeUploadWallSeconds
        self.largeUploadContextSwitches = largeUploadContextSwitches
    }

    /// The cost from the start-up CPU of each run (seconds) and paired small and large uploads (run by run), whose
    /// firmware images are `smallBytes` and `largeBytes` long, and the discovery run before each small upload when the
    /// client needs one (empty when it does not); nil when a list is empty, the pairs do not match or the sizes do not
    /// grow.
    public init?(startupSeconds: [Double], small: [ProcessUsageReport], large: [ProcessUsageReport], smallBytes: Int, largeBytes: Int,
                 discoveries: [ProcessUsageReport] = []) {
        guard small.count == large.count, discoveries.isEmpty || discoveries.count == small.count, largeBytes > smallBytes else {
            return nil
        }
        let mebibytes = Double(largeBytes - smallBytes) / 1_048_576
        guard let startup = Spread(startupSeconds.map { $0 * 1000 }),
            let fixed = Spread(small.map { $0.cpuSeconds * 1000 }),
            let perMebibyte = Spread(zip(small, large).map { ($1.cpuSeconds - $0.cpuSeconds) * 1000 / mebibytes }),
            let rss = Spread(large.map { Double($0.peakRSSKilobytes) / 1024 }),
            let wall = Spread(large.map(\.wallSeconds)),
            let switches = Spread(large.map { Double($0.contextSwitches) })
        else { return nil }
        let withDiscovery = discoveries.isEmpty ? nil : Spread(zip(small, discoveries).map { ($0.cpuSeconds + $1.cpuSeconds) * 1000 })
        self.init(startupMilliseconds: startup, fixedCostMilliseconds: fixed, cpuPerMebibyteMilliseconds: perMebibyte,
                  peakRSSMegabytes: rss, largeUploadWallSeconds: wall, largeUploadContextSwitches: switches,
                  fixedCostWithDiscoveryMilliseconds: withDiscovery)
    }
}
