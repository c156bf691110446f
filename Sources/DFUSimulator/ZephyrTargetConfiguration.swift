public import DFUCrypto

/// How a simulated Zephyr/MCUboot target (``SimulatedZephyrTarget``) is built: its MCUmgr transport
/// options, its image slots, the key MCUboot checks, and the faults it injects.
///
/// The names follow the Kconfig options they stand for (zephyr `subsys/mgmt/mcumgr/transport/Kconfig`,
/// `subsys/mgmt/mcumgr/grp/img_mgmt/Kconfig`); the defaults are those of Zephyr's `smp_svr` sample
/// with its Bluetooth overlay (`overlay-bt.conf`: reassembly on, `MCUMGR_TRANSPORT_NETBUF_SIZE` 2475).
public struct ZephyrTargetConfiguration: Sendable {
    /// One updatable image: its slot size, how MCUboot installs it, and what it runs at first.
    public struct Image: Sendable {
        /// Bytes in each of its two slots (`slot0_partition`, `slot1_partition`).
        public var slotSize: Int
        /// Whether MCUboot swaps the slots (and can revert a tested image) or copies the secondary over
        /// the primary (overwrite-only, as for the nRF5340 network core, which has no revert).
        public var revertible: Bool
        /// The image the primary slot holds at first (nil: a built-in image of version `initialVersion`).
        public var initialImage: [UInt8]?
        /// What the secondary slot holds at first (nil: erased); after an earlier swap it holds the old image.
        public var initialSecondary: [UInt8]?
        /// The version of the built-in initial image.
        public var initialVersion: (major: UInt8, minor: UInt8, revision: UInt16, build: UInt32)

        /// An image with these slots.
        public init(slotSize: Int, revertible: Bool = true, initialImage: [UInt8]? = nil, initialSecondary: [UInt8]? = nil,
                    initialVersion: (major: UInt8, minor: UInt8, revision: UInt16, build: UInt32) = (1, 0, 0, 0)) {
            self.slotSize = slotSize
            self.initialSecondary = initialSecondary
            self.revertible = revertible
            self.initialImage = initialImage
            self.initialVersion = initialVersion
        }
    }

    /// `MCUMGR_TRANSPORT_NETBUF_SIZE`: the largest request frame, header included (answered as buf_size).
    public var bufferSize = 2475
    /// `MCUMGR_TRANSPORT_NETBUF_COUNT`: receive buffers, shared with the responses (answered as buf_count).
    public var bufferCount = 4
    /// `MCUMGR_TRANSPORT_BT_REASSEMBLY`: a frame may span several writes; without it every write must be one
    /// whole frame.
    public var reassembly = true
    /// `IMG_ERASE_PROGRESSIVELY`: erase each page as the upload reaches it, instead of erasing the image's
    /// length at the first chunk.
    public var eraseProgressively = false
    /// `IMG_ENABLE_IMAGE_CHECK`: after the last chunk the slot is hashed and `match` is answered.
    public var imageCheck = true
    /// Whether the OS group's MCUmgr parameters command is built in (`MCUMGR_GRP_OS_MCUMGR_PARAMS`).
    public var answersParameters = true
    /// The SMP characteristic and its CCCD need an encrypted link (`MCUMGR_TRANSPORT_BT_AUTHEN`, or the
    /// `_PERM_RW_ENCRYPT`/`_AUTHEN` choices of later releases): until the central is bonded, subscribing
    /// fails with ATT error 0x05 and writes are ignored.
    public var requiresEncryption = false
    /// The updatable images (`MCUMGR_GRP_IMG_UPDATABLE_IMAGE_NUMBER`); image 0 runs.
    public var images = [Image(slotSize: 0x7_6000)]
    /// The key MCUboot verifies signatures with (`MCUBOOT_SIGNATURE_KEY_FILE`); nil: hash only.
    public var verifyingKey: VerifyingKey?
    /// Flash page size.
    public var pageSize = 4096
    /// CPU time to decode a request and encode its answer (an assumption, not a measurement).
    public var processingPerFrame: Duration = .microseconds(500)
    /// `MCUMGR_GRP_OS_RESET_MS`: how long after answering a reset request the device resets (`os_mgmt_reset`).
    public var resetDelay: Duration = .milliseconds(250)
    /// Writing a slot's trailer flags for test or confirm (`boot_set_next`; an estimate: a few words).
    public var trailerWrite: Duration = .microseconds(500)
    /// Nordic known issue NCSDK-34106 (nRF Connect SDK 2.6.0–3.4.0, nRF5340): when image 0 (the application core) is
    /// marked for test or confirm before image 1 (the network core), MCUboot skips the network core update at the
    /// next reset.
    public var skipsNetworkCoreMarkedAfterApplication = false
    /// The advertised name (`BT_DEVICE_NAME` of `smp_svr`).
    public var name = "Zephyr"
    /// MCUboot's firmware loader mode (nil: a swap mode): image 0's slot 1 holds the loader, which takes the updates
    /// (``FirmwareLoaderConfiguration``).
    public var firmwareLoader: FirmwareLoaderConfiguration?
    /// `MCUMGR_GRP_OS_BOOTLOADER_INFO` (OS group, command 8; Kconfig's default is off): nil follows the mode (on
    /// for a firmware loader build, whose `ble_mcumgr` loader sets it, off otherwise).
    public var bootloaderInfo: Bool?
    /// Whether the bootloader info command is answered.
    public var answersBootloaderInfo: Bool { bootloaderInfo ?? (firmwareLoader != nil) }

    /// Fault: answers (1-based, counted over the target's life) sent twice.
    public var duplicatedResponses: Set<Int> = []
    /// Fault: answers that are never sent (the request was handled).
    public var unansweredResponses: Set<Int> = []
    /// Fault: the device resets (losing the upload state in RAM, as a watchdog or power loss would) once this
    /// many image bytes were written, before answering that chunk.
    public var resetAfterUploadBytes: Int?
    /// Hostile fault, not modelled on any real device: the MCUmgr parameters answer this buf_size (any integer),
    /// while the receive buffers stay `bufferSize`.
    public var reportedBufferSize: Int?
    /// Hostile fault, not modelled on any real device: the MCUmgr parameters answer this buf_count (any integer).
    public var reportedBufferCount: Int?
    /// Hostile fault, not modelled on any real device: every upload chunk at an offset other than 0 is answered with
    /// `off` 0 and the upload state dropped, so a client that follows the device starts over for ever.
    public var lyingOffset = false
    /// Hostile fault, not modelled on any real device: before each answer, this many answers to requests
    /// never made (the same group and command under other sequence numbers, each saying `off` 0 and `rc` 0).
    public var floodPerAnswer = 0

    /// `MCUMGR_GRP_IMG_SLOT_INFO`: the image group's slot info command (6) is built in; nil: Kconfig's default,
    /// on only with more than one updatable image (zephyr `subsys/mgmt/mcumgr/grp/img_mgmt/Kconfig`: `default y if
    /// MCUMGR_GRP_IMG_UPDATABLE_IMAGE_NUMBER > 1`). Zephyr 3.4 (nRF Connect SDK 2.4/2.5) has no such command.
    public var slotInfo: Bool?
    /// Whether slot info is answered (``slotInfo``, or its Kconfig default).
    public var answersSlotInfo: Bool { slotInfo ?? (images.count > 1) }

    /// The `smp_svr` sample with its Bluetooth overlay: one image, 472 KB slots (nRF52840 DK partitions).
    public init() {}
}
