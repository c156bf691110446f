public import DFUCore

/// How a simulated SDK 15–17 Secure bootloader is built, and the faults it injects.
public struct SecureBootloaderConfiguration: Sendable, Hashable {
    /// Maximum command object size reported by Select (256).
    public var commandObjectMaxSize = 256
    /// Maximum data object size reported by Select (4096, one nRF52 page).
    public var dataObjectMaxSize = 4096
    /// Receive buffers for packet writes (`4096 / 244 + 1 = 17`); writes arriving when all are busy are dropped.
    public var receiveBuffers = 17
    /// The hardware version init packets must name.
    public var hardwareVersion: UInt32 = 52
    /// Whether init packets must be signed (extended error 0x08 otherwise).
    public var requiresSignature = false
    /// The compiled-in public key (PEM, ECDSA P-256): init packets must carry a signature it verifies.
    public var publicKey: [UInt8]?
    /// Built with `NRF_DFU_BLE_REQUIRES_BONDS`: keeps the application's address instead of address + 1.
    public var requiresBonds = false
    /// Largest image the bank can take (extended error 0x0D above it).
    public var maximumImageSize = 512 * 1024
    /// The default advertised name.
    public var defaultName = "DfuTarg"
    /// Whether Abort (0x0C, SDK 15+) is understood.
    public var supportsAbort = true
    /// SDK 15.2 behaviour: after a link loss the partly received object is dropped, so Select
    /// reports only whole executed pages.
    public var reportsOnlyFullPagesAfterLinkLoss = false
    /// Fault: reject every init packet with this extended error.
    public var rejectInitPacketWith: SecureDFUExtendedError?
    /// Fault: never answer control point writes.
    public var neverAnswers = false
    /// The GATT UUIDs it uses.
    public var uuids = DFUServiceUUIDs()

    /// The defaults of an SDK 15–17 release build.
    public init() {}
}
