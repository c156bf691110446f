public import DFUCore

/// How a simulated Legacy bootloader (SDK 4.3–11) is built, and the faults it injects.
public struct LegacyBootloaderConfiguration: Sendable, Hashable {
    /// The DFU Version characteristic value; nil: no characteristic (SDK ≤ 6.1).
    public var version: LegacyDFUVersion? = LegacyDFUVersion(major: 0, minor: 8)
    /// SDK 4.3–6.0 ("DFU v1"): understands only the app-only Start DFU (`01`, then the size u32).
    public var originalStartOnly = false
    /// Image types answered "not supported" (Nordic bootloaders refuse 0x05–0x07).
    public var unsupportedImageTypes: Set<UInt8> = [0x05, 0x06, 0x07]
    /// Largest total image accepted (status 4 above it).
    public var maximumImageSize = 512 * 1024
    /// The advertised name.
    public var name = "DfuTarg"
    /// The GATT UUIDs it uses.
    public var uuids = DFUServiceUUIDs()
    /// Services served besides DFU (some SDK ≤ 6.1 bootloaders add e.g. Device Information, which
    /// makes a bootloader without DFU Version characteristic look like an application).
    public var otherServices: [SimulatedService] = []
    /// Fault: never answer control point writes.
    public var neverAnswers = false

    /// The defaults: an SDK 9–11 bootloader, DFU Version 0.8.
    public init() {}
}
