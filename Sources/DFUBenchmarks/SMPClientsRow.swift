/// One row of figure 6: one client's upload of the same MCUboot image (or, for the nRF5 reference row, of a
/// Secure DFU package) through `dfu-sim run`, measured on the wall clock.
public struct SMPClientsRow: Sendable, Hashable, Codable {
    /// Who uploaded what, e.g. "`dfu upload`, SMP" or "`smpmgr image upload`".
    public var client: String
    /// Bytes of the file uploaded.
    public var bytes: Int
    /// Wall time of the whole command (start to exit: start-up, scan, connection, transfer, and for `dfu` the test
    /// mark), seconds.
    public var wallSeconds: Spread
    /// From the first upload answer to the last, as the client reported them (`dfu --json` progress events, smpmgr's
    /// "Upload offset=" log lines), seconds.
    public var transferSeconds: Spread
    /// Bytes the target acknowledged between those two answers, over that time, bytes/s.
    public var transferBytesPerSecond: Spread
    /// User + system CPU of the client's process, seconds.
    public var cpuSeconds: Spread
    /// CPU beyond what the client's own start-up costs (`dfu --version`, `smpmgr --version`), seconds per MiB.
    public var cpuBeyondStartupSecondsPerMebibyte: Spread
    /// Peak RSS of the client's process, MB.
    public var peakRSSMegabytes: Spread
}
