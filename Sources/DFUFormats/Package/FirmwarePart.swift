/// One image of a DFU package with its init packet, ready to be sent.
///
/// Parts are made by ``DFUPackage`` after every check has passed; holding one means the image
/// and its init packet agree.
public struct FirmwarePart: Sendable, Hashable {
    /// What the part replaces.
    public let kind: PartKind
    /// The firmware image (`.bin`), sent as data objects (Secure) or after Receive (Legacy).
    public let image: [UInt8]
    /// The init packet (`.dat`), sent verbatim as the command object (Secure) or between
    /// Initialize begin/complete (Legacy). Empty when a Legacy package has none.
    public let initPacket: [UInt8]
    /// Size of the SoftDevice inside `image` (the whole image for `.softdevice`, 0 when none).
    public let softdeviceSize: UInt32
    /// Size of the bootloader inside `image` (the whole image for `.bootloader`, 0 when none).
    public let bootloaderSize: UInt32
    /// The name of the image inside the package (for messages), e.g. `app.bin`.
    public let imageName: String
    /// The name of the init packet inside the package, or nil.
    public let initPacketName: String?

    /// Size of the application inside `image` (the whole image for `.application`, 0 otherwise).
    public var applicationSize: UInt32 { kind == .application ? UInt32(image.count) : 0 }

    /// Makes a part. `softdeviceSize`/`bootloaderSize` default from `kind` and the image size.
    public init(
        kind: PartKind, image: [UInt8], initPacket: [UInt8],
        softdeviceSize: UInt32? = nil, bootloaderSize: UInt32? = nil,
        imageName: String = "image.bin", initPacketName: String? = "image.dat"
    ) {
        self.kind = kind
        self.image = image
        self.initPacket = initPacket
        let size = UInt32(clamping: image.count)
        self.softdeviceSize = softdeviceSize ?? (kind == .softdevice ? size : 0)
        self.bootloaderSize = bootloaderSize ?? (kind == .bootloader ? size : 0)
        self.imageName = imageName
        self.initPacketName = initPacketName
    }
}
