/// What an SMP upload sends and how: the images (all of them before one reset), the ending, and
/// the overrides of what the device's MCUmgr parameters suggest.
public struct SMPUploadPlan: Sendable, Hashable {
    /// The images, uploaded in this order.
    public var images: [SMPUploadImage]
    /// What happens after the upload.
    public var ending: SMPEnding
    /// Largest request frame in bytes (header included); nil: the device's buf_size if it reassembles (see
    /// ``deviceReassembles``), otherwise one write.
    public var frameSize: Int?
    /// Requests in flight at once; nil: the device's buf_count − 2 (at least 1; ``SMPUploadWindow/defaultSize(bufferCount:)``).
    public var window: Int?
    /// Whether the device reassembles a request frame longer than one write (Zephyr's
    /// `CONFIG_MCUMGR_TRANSPORT_BT_REASSEMBLY`, `smp_bt_chr_write` in `smp_bt.c`): then frames are
    /// sized by buf_size and split across writes; otherwise each frame fits one write. nil (the default): ask the
    /// device first (``SMPReassemblyProbe``) when its buf_size is longer than one write.
    public var deviceReassembles: Bool?
    /// Only let the device accept an image newer than the one it runs (the upload's `upgrade`).
    public var upgradeOnly: Bool
    /// Unanswered requests (timeouts in a row without progress) before giving up.
    public var attempts: Int
    /// Whether the device updates through MCUboot's firmware loader (one application slot; the application is
    /// reset into the loader, which takes the image): nil (the default) when the device says so (bootloader info,
    /// mode 7), true when the user says so (a server that does not answer the mode, e.g. Zephyr before 3.6).
    public var firmwareLoader: Bool?

    /// A plan.
    public init(images: [SMPUploadImage], ending: SMPEnding = .testThenConfirm, frameSize: Int? = nil,
                window: Int? = nil, deviceReassembles: Bool? = nil, upgradeOnly: Bool = false, attempts: Int = 4, firmwareLoader: Bool? = nil) {
        self.images = images
        self.ending = ending
        self.frameSize = frameSize
        self.window = window
        self.deviceReassembles = deviceReassembles
        self.upgradeOnly = upgradeOnly
        self.attempts = attempts
        self.firmwareLoader = firmwareLoader
    }

    /// The bytes of every image together.
    public var totalBytes: Int { images.reduce(0) { $0 + $1.bytes.count } }
}
