import DFUCore
import DFUFormats

/// Builds Legacy extended init packets (DFU version 0.5: 14 bytes with one SoftDevice entry) for test fixtures.
public struct LegacyInitPacketBuilder: Sendable, Hashable {
    /// device type (0xFFFF = any).
    public var deviceType: UInt16 = 0xFFFF
    /// device revision (0xFFFF = any).
    public var deviceRevision: UInt16 = 0xFFFF
    /// application version (0xFFFFFFFF = any).
    public var applicationVersion: UInt32 = 0xFFFF_FFFF
    /// Accepted SoftDevice FWIDs (0xFFFE = any).
    public var softdeviceRequirements: [UInt16]
    /// The image's CRC-16/CCITT-FALSE.
    public var crc16: UInt16

    /// A packet for `image`.
    public init(image: [UInt8], softdeviceRequirements: [UInt16] = [0xFFFE]) {
        crc16 = CRC16.checksum(image)
        self.softdeviceRequirements = softdeviceRequirements
    }

    /// The encoded packet: type, revision, version, SoftDevice count and list, CRC-16, all little-endian.
    public var bytes: [UInt8] {
        var writer = ByteWriter()
        writer.writeInteger(deviceType)
        writer.writeInteger(deviceRevision)
        writer.writeInteger(applicationVersion)
        writer.writeInteger(UInt16(softdeviceRequirements.count))
        softdeviceRequirements.forEach { writer.writeInteger($0) }
        writer.writeInteger(crc16)
        return writer.bytes
    }
}
