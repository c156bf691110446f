import DFUCore

/// A Legacy extended init packet (nrfutil 0.5.x), decoded by the simulated bootloader and built for tests.
public struct LegacyInitPacket: Sendable, Hashable {
    /// device type (0xFFFF = any).
    public var deviceType: UInt16 = 0xFFFF
    /// device revision (0xFFFF = any).
    public var deviceRevision: UInt16 = 0xFFFF
    /// application version (0xFFFFFFFF = any).
    public var applicationVersion: UInt32 = 0xFFFF_FFFF
    /// Accepted SoftDevice FWIDs (0xFFFE = any).
    public var softdeviceRequirements: [UInt16] = [0xFFFE]
    /// The image's CRC-16.
    public var crc16: UInt16

    /// A DFU-version-0.5 packet (14 bytes with one SoftDevice entry) for `image`.
    public init(image: [UInt8], softdeviceRequirements: [UInt16] = [0xFFFE]) {
        crc16 = CRC16.checksum(image)
        self.softdeviceRequirements = softdeviceRequirements
    }

    /// Decodes a 0.5/0.6 packet ending in the CRC-16; nil when malformed.
    public init?(bytes: [UInt8]) {
        var reader = WireReader(bytes)
        guard let type = reader.readUInt16(), let revision = reader.readUInt16(), let version = reader.readUInt32(),
            let count = reader.readUInt16()
        else { return nil }
        var list: [UInt16] = []
        for _ in 0..<count {
            guard let id = reader.readUInt16() else { return nil }
            list.append(id)
        }
        if reader.remaining == 6 { _ = reader.readUInt32() }  // extension id 0 (CRC) of dfu-ver 0.6
        guard reader.remaining == 2, let crc = reader.readUInt16() else { return nil }
        deviceType = type
        deviceRevision = revision
        applicationVersion = version
        softdeviceRequirements = list
        crc16 = crc
    }

    /// The encoded packet.
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        func u16(_ v: UInt16) { out += [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }
        u16(deviceType)
        u16(deviceRevision)
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: applicationVersion >> UInt32(shift))) }
        u16(UInt16(softdeviceRequirements.count))
        softdeviceRequirements.forEach(u16)
        u16(crc16)
        return out
    }
}
