import DFUCrypto
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

        /// Makes an entry.
        public init(
            address: String, kind: String, images: [String: Image], stats: DeviceStatistics, violations: [String] = []
        ) {
            self.address = address
            self.kind = kind
            self.images = images
            self.stats = stats
            self.violations = violations
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
