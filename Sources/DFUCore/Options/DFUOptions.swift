/// Every knob of an update, with the defaults of Nordic's mobile libraries.
public struct DFUOptions: Sendable, Hashable {
    /// Packet Receipt Notification interval for firmware (0 = off). Default 12.
    public var packetReceiptNotifications: UInt16 = 12
    /// The PRN interval used for the rest of a Secure transfer once a loss was detected. Default 1 (as Android).
    public var packetReceiptNotificationsAfterLoss: UInt16 = 1
    /// Treat a Legacy device without DFU Version characteristic as a bootloader. Default off.
    public var forceDFU = false
    /// GATT UUIDs of every role.
    public var uuids = DFUServiceUUIDs()
    /// Use the SDK 12 experimental buttonless service (opt-in: unauthenticated). Default off.
    public var experimentalButtonless = false
    /// Rename the bootloader before a buttonless jump. Default: a random `DfuNNNNN`.
    public var alternativeName: DFUAlternativeName = .random
    /// Connect to the bootloader at this address instead of applying the address rules.
    public var bootloaderAddress: DFUDeviceAddress?
    /// Connect to the bootloader advertising this name instead of applying the name rule.
    public var bootloaderName: String?
    /// Which parts to send. Default all.
    public var scope: DFUScope = .all
    /// Reconnect-and-resume attempts after a link loss during one part. Default 3.
    public var reconnectAttempts = 3
    /// Attempts per object when the checksum does not match. Default 3.
    public var objectAttempts = 3
    /// Attempts to connect (scan found the device but the connection failed): `--retries` N is N + 1.
    /// Default 4, one more than ``reconnectAttempts``, as `--retries` states its default.
    public var connectionAttempts = 4
    /// How long to scan for a device. Default 10 s.
    public var scanTimeout: Duration = .seconds(10)
    /// How long a connection and service discovery may take. Default 10 s.
    public var connectTimeout: Duration = .seconds(10)
    /// How long to wait for a control point response. Default 10 s.
    public var responseTimeout: Duration = .seconds(10)
    /// How long to wait for a packet receipt before asking for the checksum. Default 1 s.
    public var receiptTimeout: Duration = .seconds(1)
    /// Resume an interrupted Secure upload from the device's offset. Default on.
    public var resume = true
    /// Upper bound on the Secure packet size (bytes); nil = MTU − 3 rounded down to a multiple of 4.
    public var packetSizeCap: Int?
    /// Wait after creating the first data object (flash preparation on SDK 15–17). Default 400 ms; with flash
    /// pacing a delay the pacer already covers is not waited (see ``effectiveFirstObjectDelay``).
    public var firstObjectDelay: Duration = .milliseconds(400)
    /// Whether `firstObjectDelay` was asked for explicitly: then it is waited as given, with flash
    /// pacing too (0 = no wait). Default off: the pacer covers the flash preparation instead.
    public var firstObjectDelayIsExplicit = false
    /// Wait after creating every data object. Default 0.
    public var objectDelay: Duration = .zero
    /// Holds Secure firmware packets back so the bootloader's receive buffers never overflow while its
    /// flash is busy (``FlashPacing``); nil sends packets as fast as the link takes them. Default: nRF52 maxima.
    public var flashPacing: FlashPacing? = FlashPacing()
    /// How long one device's whole update may take (``DFUDeadline``). Default: 300 s + 4 ms per firmware byte.
    public var deadline: DFUDeadline = .automatic
    /// Seed for the random alternative name (nil = system random); fixed in tests.
    public var nameSeed: UInt64?

    /// The defaults.
    public init() {}

    /// The first-object delay waited: `firstObjectDelay`, except with flash pacing when it is no longer than
    /// the bank preparation plus the first erase: the pacer then holds back every packet that would not find a
    /// free buffer for at least that long (``FlashPacing/bankPreparation`` + ``FlashPacing/pageErase``),
    /// and lets the first buffers' worth go at once.
    public var effectiveFirstObjectDelay: Duration {
        guard let flashPacing, !firstObjectDelayIsExplicit,
              firstObjectDelay <= flashPacing.bankPreparation + flashPacing.pageErase else {
            return firstObjectDelay
        }
        return .zero
    }

    /// The Secure packet size for a link: write length rounded down to a multiple of 4, capped.
    public func securePacketSize(maximumWriteLength: Int) -> Int {
        let capped = min(maximumWriteLength, packetSizeCap ?? Int.max)
        return max(4, capped - capped % 4)
    }
}
