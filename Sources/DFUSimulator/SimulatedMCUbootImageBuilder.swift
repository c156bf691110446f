import DFUCore
import DFUCrypto
import DFUFormats

/// Builds MCUboot images for simulated targets and modelled figures: the 32-byte header, the body and one
/// TLV area with the SHA256 TLV (mcu-tools/mcuboot `docs/design.md`, "Image Format"), as `imgtool sign`
/// without a key writes them. Signed images for tests come from imgtool itself (Tests/Fixtures/mcuboot).
public struct SimulatedMCUbootImageBuilder: Sendable {
    /// The version in the header.
    public var version: (major: UInt8, minor: UInt8, revision: UInt16, build: UInt32)
    /// Header size (imgtool's `--header-size`, 0x200 in Zephyr builds).
    public var headerSize: UInt16 = 0x200
    /// Header flags (e.g. 0x10 non-bootable).
    public var flags: UInt32 = 0
    /// The load address (0: none).
    public var loadAddress: UInt32 = 0

    /// A builder for images of this version.
    public init(version: (major: UInt8, minor: UInt8, revision: UInt16, build: UInt32)) {
        self.version = version
    }

    /// An image whose body is `body`.
    public func image(body: [UInt8]) -> [UInt8] {
        var header = ByteWriter()
        header.writeInteger(MCUbootImage.magic)
        header.writeInteger(loadAddress)
        header.writeInteger(headerSize)
        header.writeInteger(UInt16(0))  // no protected TLVs
        header.writeInteger(UInt32(body.count))
        header.writeInteger(flags)
        header.writeInteger(version.major)
        header.writeInteger(version.minor)
        header.writeInteger(version.revision)
        header.writeInteger(version.build)
        header.writeInteger(UInt32(0))
        var bytes = header.bytes + [UInt8](repeating: 0, count: max(0, Int(headerSize) - header.bytes.count)) + body
        let digest = SHA256.digest(bytes)
        var tlvs = ByteWriter()
        tlvs.writeInteger(MCUbootImage.infoMagic)
        tlvs.writeInteger(UInt16(4 + 4 + digest.count))
        tlvs.writeInteger(MCUbootTLV.sha256)
        tlvs.writeInteger(UInt16(digest.count))
        tlvs.writeBytes(digest)
        bytes += tlvs.bytes
        return bytes
    }

    /// An image with a body of `size` bytes of a fixed pattern seeded by `seed`.
    public func image(bodySize size: Int, seed: UInt8 = 0) -> [UInt8] {
        image(body: (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }
}
