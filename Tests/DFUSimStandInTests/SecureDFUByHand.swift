import DFUCore
import DFUCrypto
import DFUFormats
import DFUSimulator

/// Little-endian helpers and request bytes for driving a Secure bootloader by hand.
enum SecureDFUByHand {
    static let controlPoint = "8ec90001-f315-4f60-9fb8-838830daea50"
    static let packet = "8ec90002-f315-4f60-9fb8-838830daea50"

    static func uint32(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24 & 0xFF)]
    }

    static func readUInt32(_ bytes: [UInt8], at index: Int) -> Int {
        Int(bytes[index]) | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2]) << 16 | Int(bytes[index + 3]) << 24
    }

    /// An application image of `count` bytes (a repeating pattern).
    static func image(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) } }

    /// A valid unsigned init packet for `image` as an application, version 2.
    static func initPacket(for image: [UInt8]) -> [UInt8] {
        SecureInitCommand(
            kind: .application, image: image, firmwareVersion: 2, hash: Array(SHA256.digest(image).reversed())
        )
        .packet
    }

    /// Select (`06 type`).
    static func select(_ type: UInt8) -> [UInt8] { [0x06, type] }
    /// Create (`01 type size`).
    static func create(_ type: UInt8, size: Int) -> [UInt8] { [0x01, type] + uint32(size) }
    /// Calculate Checksum.
    static let checksum: [UInt8] = [0x03]
    /// Execute.
    static let execute: [UInt8] = [0x04]
}
