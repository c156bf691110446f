import DFUCore
import DFUCrypto
import DFUFormats
public import DFUSimulator
import FoundationEssentials

/// The `--report FILE` document: each simulated device's flash and statistics when dfu-sim ends.
public struct StandInReport: Sendable, Codable, Equatable {
    /// One installed image.
    public struct Image: Sendable, Codable, Equatable {
        /// Its size in bytes.
        public var size: Int
        /// Its CRC-32, 8 lower-case hex digits.
        public var crc32: String

        /// Describes `bytes`.
        public init(bytes: [UInt8]) {
            size = bytes.count
            let hex = String(CRC32.checksum(bytes), radix: 16)
            crc32 = String(repeating: "0", count: max(0, 8 - hex.count)) + hex
        }
    }

    /// One occupied MCUboot slot of an SMP device, with the flags its image list shows
    /// (`img_mgmt_state_read`).
    public struct Slot: Sendable, Codable, Equatable {
        /// The image number (0: the application; on an nRF5340 1 is the network core's).
        public var image: Int
        /// 0 primary (what runs), 1 secondary.
        public var slot: Int
        /// The image's version as the image list shows it (`1.2.3`, `.4` when the build number is not 0).
        public var version: String
        /// The image's SHA256 TLV, lower-case hex (the image list's `hash`).
        public var hash: String
        /// The image's bytes: header, body and TLVs.
        public var size: Int
        /// The running image.
        public var active: Bool
        /// Marked to be swapped in at the next reset.
        public var pending: Bool
        /// Stays after the next reset.
        public var confirmed: Bool
        /// Pending for good (not just a test).
        public var permanent: Bool

        /// Makes an entry.
        public init(image: Int, slot: Int, version: String, hash: String, size: Int, active: Bool, pending: Bool,
                    confirmed: Bool, permanent: Bool) {
            self.image = image
            self.slot = slot
            self.version = version
            self.hash = hash
            self.size = size
            self.active = active
            self.pending = pending
            self.confirmed = confirmed
            self.permanent = permanent
        }

        /// The occupied slots of `target` as its image list shows them, with each image's size.
        public static func list(of target: SimulatedZephyrTarget) -> [Slot] {
            target.imageList.map { entry in
                Slot(
                    image: entry.image, slot: entry.slot, version: entry.version, hash: entry.hashHex,
                    size: target.slots[entry.image].image(inSlot: entry.slot)?.tlvEnd ?? 0, active: entry.active,
                    pending: entry.pending, confirmed: entry.confirmed, permanent: entry.permanent)
            }
        }
    }

    /// One device.
    public struct Device: Sendable, Codable, Equatable {
        /// The device's (application) address.
        public var address: String
        /// Its `--device` kind.
        public var kind: String
        /// Installed images by part type (`application`, `softdevice`, `bootloader`).
        public var images: [String: Image]
        /// What happened.
        public var stats: DeviceStatistics
        /// Protocol invariants the client broke (an Execute of an unverified object, a write past an
        /// object's announced size, a Legacy packet over 20 bytes, …), in order; empty when it kept them all.
        public var violations: [String]
        /// SMP devices only (nil and left out for the others): each occupied slot, by image then slot.
        public var slots: [Slot]?

        /// Makes an entry.
        public init(
            address: String, kind: String, images: [String: Image], stats: DeviceStatistics, violations: [String] = [],
            slots: [Slot]? = nil
        ) {
            self.address = address
            self.kind = kind
            self.images = images
            self.stats = stats
            self.violations = violations
            self.slots = slots
        }
    }

    /// The devices, in `--device` order.
    public var devices: [Device]

    /// Makes a report.
    public init(devices: [Device]) { self.devices = devices }

    /// The JSON text (sorted keys, pretty printed, newline at the end).
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }
}
