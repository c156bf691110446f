import DFUCrypto
public import DFUSimStandIn
public import DFUSimulator

/// What the peripheral wrote to `--report FILE`: what it runs now, what its flash holds, and
/// what it saw on the link. Rewritten after every boot and at exit.
public struct PeripheralReport: Sendable, Codable, Equatable {
    /// One image in flash.
    public struct Image: Sendable, Codable, Equatable {
        /// Its size in bytes.
        public var size: Int
        /// Its CRC-32 (as in the package's manifest and init packet).
        public var crc32: UInt32

        /// Describes `bytes`.
        public init(_ bytes: [UInt8]) {
            size = bytes.count
            crc32 = CRC32.checksum(bytes)
        }
    }

    /// One boot of the simulated device.
    public struct Boot: Sendable, Codable, Equatable {
        /// `application` or `bootloader`.
        public var role: String
        /// The adapter it was registered on (e.g. `hci2`).
        public var adapter: String
        /// The name it advertised.
        public var advertisedName: String
        /// When this boot took its first write, in seconds since the peripheral started; nil before one. With
        /// ``lastWriteSeconds`` it is the transfer as the device saw it, whichever client made it (a bench's rate
        /// at the device: Tests/BlueZVM/bench.sh).
        public var firstWriteSeconds: Double?
        /// When this boot took its last write so far (for a bootloader: the final Execute), in the same seconds.
        public var lastWriteSeconds: Double?

        /// Notes a write taken at `seconds`.
        public mutating func noteWrite(at seconds: Double) {
            if firstWriteSeconds == nil { firstWriteSeconds = seconds }
            lastWriteSeconds = seconds
        }
    }

    /// `application` or `bootloader`.
    public var role: String
    /// The adapter it is registered on now.
    public var adapter: String
    /// The name it advertises now.
    public var advertisedName: String
    /// The application in flash, nil when none is valid.
    public var application: Image?
    /// The SoftDevice written by DFU, nil while the factory one is installed.
    public var softdevice: Image?
    /// The bootloader written by DFU, nil while the factory one is installed.
    public var bootloader: Image?
    /// The SoftDevice and bootloader together, as one `softdevice_bootloader` part carries them
    /// (its CRC-32 is the package's); nil unless both were written.
    public var softdeviceBootloader: Image?
    /// Every boot, the first one included.
    public var boots: [Boot] = []
    /// How many writes arrived (WriteValue and acquired packets).
    public var writes = 0
    /// How many of them came through an AcquireWrite socket.
    public var acquiredWrites = 0
    /// The longest write in bytes (the packet size the central used).
    public var longestWrite = 0
    /// The ATT MTU bluetoothd reported, 0 until a write or an Acquire* said it.
    public var mtu = 0
    /// How many notifications/indications were sent, and how many through an AcquireNotify socket.
    public var notifications = 0
    /// Notifications sent through an AcquireNotify socket.
    public var acquiredNotifications = 0
    /// How many times a central disconnected.
    public var disconnections = 0
    /// Protocol invariants the central broke, as the simulated firmware saw them.
    public var violations: [String] = []
    /// SMP devices only (nil and left out for the others): each occupied MCUboot slot, by image then slot, as
    /// in `dfu-sim run`'s report.
    public var slots: [StandInReport.Slot]?
    /// SMP devices only: the SMP statistics, as in `dfu-sim run`'s report.
    public var stats: SMPStatistics?

    /// Copies an SMP device's slots and statistics.
    public mutating func updateSMP(target: SimulatedZephyrTarget, traffic: SMPTrafficCounter) {
        slots = StandInReport.Slot.list(of: target)
        stats = SMPStatistics(traffic: traffic, target: target)
    }

    /// A report for a device that has not booted yet.
    public init(storage: SimulatedStorage) {
        role = ""
        adapter = ""
        advertisedName = ""
        update(storage: storage)
    }

    /// Copies the images from the device's flash.
    public mutating func update(storage: SimulatedStorage) {
        application = storage.application.map(Image.init)
        softdevice = storage.softdevice.map(Image.init)
        bootloader = storage.bootloader.map(Image.init)
        if let softdevice = storage.softdevice, let bootloader = storage.bootloader {
            softdeviceBootloader = Image(softdevice + bootloader)
        } else {
            softdeviceBootloader = nil
        }
    }
}
