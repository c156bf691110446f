/// One firmware image given directly, not in a package: a `.bin` or `.hex`, an optional `.dat`,
/// and what the image is.
public struct RawImage: Sendable, Hashable {
    /// What the image replaces.
    public var kind: PartKind
    /// The image's file name; a name ending in `.hex` (any case) is read as Intel HEX.
    public var imageName: String
    /// The file's bytes: a flat binary, or Intel HEX text.
    public var imageBytes: [UInt8]
    /// The init packet's file name, if any.
    public var initPacketName: String?
    /// The init packet's bytes, if any.
    public var initPacket: [UInt8]?
    /// The SoftDevice size inside a combined SoftDevice+bootloader image.
    public var softdeviceSize: UInt32?
    /// The bootloader size inside a combined SoftDevice+bootloader image.
    public var bootloaderSize: UInt32?

    /// Describes a raw image.
    public init(
        kind: PartKind, imageName: String, imageBytes: [UInt8], initPacketName: String? = nil, initPacket: [UInt8]? = nil,
        softdeviceSize: UInt32? = nil, bootloaderSize: UInt32? = nil
    ) {
        self.kind = kind
        self.imageName = imageName
        self.imageBytes = imageBytes
        self.initPacketName = initPacketName
        self.initPacket = initPacket
        self.softdeviceSize = softdeviceSize
        self.bootloaderSize = bootloaderSize
    }

    /// Whether the image is Intel HEX, judged by its name.
    public var isIntelHex: Bool { imageName.lowercased().hasSuffix(".hex") }

    /// The flat image: the bytes as given, or converted from Intel HEX for this kind of part.
    public func flatImage() throws(PackageError) -> [UInt8] {
        isIntelHex ? try IntelHex(text: imageBytes, name: imageName).image(for: kind) : imageBytes
    }

    /// The protocol family the init packet was made for.
    ///
    /// No init packet: Legacy, because Secure bootloaders always need one while SDK ≤ 6 Legacy
    /// bootloaders accept an image alone. An init packet that decodes as a protobuf `Packet`
    /// holding an init command: Secure. Anything else: Legacy (a CRC-only or extended packet).
    public var format: PackageFormat {
        guard let initPacket, !initPacket.isEmpty else { return .legacy }
        if let packet = try? SecureInitPacket(bytes: initPacket), packet.initCommand != nil { return .secure }
        // A Legacy packet that does not decode either: report it as Secure when it starts like
        // a protobuf Packet (field 1 or 2, length-delimited), so the error names protobuf fields.
        if (try? LegacyInitPacket(bytes: initPacket, dfuVersion: nil)) == nil, initPacket.count > 2,
            initPacket[0] == 0x0A || initPacket[0] == 0x12
        {
            return .secure
        }
        return .legacy
    }
}
