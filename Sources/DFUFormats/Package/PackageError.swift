/// Why a DFU package (or a raw image with its init packet) cannot be used.
///
/// Each case carries the entry it is about and the cause; ``description`` renders one sentence
/// that starts with the entry name, e.g. `app.dat: init packet is truncated (ends inside field 8 'hash')`.
public enum PackageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The package has no `manifest.json`.
    case missingManifest
    /// `manifest.json` is not valid JSON or does not have the expected shape.
    case invalidManifest(cause: String)
    /// `manifest.json` names a part this tool does not know (e.g. Android's `bootloader_application`).
    case unknownPart(key: String)
    /// `manifest.json` names no part at all.
    case noParts
    /// `manifest.json` names more than one system part (SoftDevice, bootloader, SoftDevice+bootloader).
    case severalSystemParts([PartKind])
    /// An entry named by the manifest is not in the package.
    case missingEntry(name: String, part: PartKind)
    /// A Secure part has no init packet.
    case missingInitPacket(imageName: String)
    /// An image has no bytes.
    case emptyImage(name: String)
    /// An image's size is not a multiple of 4 bytes (flash is written in words).
    case misalignedImage(name: String, size: Int)
    /// A SoftDevice+bootloader image comes without the sizes of its two halves.
    case missingSystemSizes(name: String)
    /// The SoftDevice and bootloader sizes do not add up to the image size (or one is 0).
    case systemSizesMismatch(name: String, softdeviceSize: UInt32, bootloaderSize: UInt32, imageSize: Int)
    /// An init packet could not be decoded.
    case malformedInitPacket(name: String, defect: InitPacketDefect)
    /// A Secure init packet holds no `INIT` command with an `InitCommand`.
    case notAnInitCommand(name: String)
    /// A Secure init packet's `type` is not the type of the part it belongs to.
    case wrongFirmwareType(name: String, part: PartKind, found: SecureInitPacket.FirmwareType?)
    /// A size in an init packet differs from the image (or manifest) size.
    case sizeFieldMismatch(name: String, field: String, value: UInt32, expected: UInt32, imageName: String)
    /// The digest in an init packet does not match the image.
    case hashMismatch(name: String, imageName: String)
    /// The digest in an init packet cannot be checked (absent or of an unsupported type).
    case hashNotCheckable(name: String, reason: String)
    /// The signature of an init packet does not verify with the given key.
    case invalidSignature(name: String)
    /// An ECDSA signature in the init packet's `boot_validation` does not verify with the given key.
    case invalidBootValidationSignature(name: String)
    /// A key was given but the init packet is not signed.
    case unsignedInitPacket(name: String)
    /// A key was given but this signature cannot be checked.
    case unverifiableSignature(name: String, reason: String)
    /// An Intel HEX file spans more addresses than a flat image may hold.
    case imageTooLarge(name: String, size: UInt64, limit: Int)
    /// An Intel HEX file is malformed.
    case invalidIntelHex(name: String, line: Int, cause: String)
    /// The package is an nRF Connect SDK zip of MCUboot images (see ``MCUbootPackageReport``).
    case mcubootPackage

    /// One sentence naming the file or entry and the cause.
    public var description: String {
        switch self {
        case .missingManifest:
            "manifest.json: the package has no manifest"
        case .invalidManifest(let cause):
            "manifest.json: \(cause)"
        case .unknownPart(let key):
            "manifest.json: unknown part '\(key)' (expected application, bootloader, softdevice or softdevice_bootloader)"
        case .noParts:
            "manifest.json: the manifest names no firmware part"
        case .severalSystemParts(let kinds):
            "manifest.json: the manifest has several system parts (\(kinds.map(\.rawValue).joined(separator: ", "))), but at most one is allowed"
        case .missingEntry(let name, let part):
            "\(name): named by manifest.json for the \(part.rawValue) part but missing from the package"
        case .missingInitPacket(let imageName):
            "\(imageName): a Secure DFU image needs an init packet (.dat), and this one has none"
        case .emptyImage(let name):
            "\(name): the image is empty"
        case .misalignedImage(let name, let size):
            "\(name): the image size \(size) is not a multiple of 4 bytes"
        case .missingSystemSizes(let name):
            "\(name): no sd_size and bl_size are given for this SoftDevice+bootloader image"
        case .systemSizesMismatch(let name, let sd, let bl, let size):
            "\(name): sd_size \(sd) + bl_size \(bl) must be two non-zero sizes adding up to the image size \(size)"
        case .malformedInitPacket(let name, let defect):
            "\(name): \(defect)"
        case .notAnInitCommand(let name):
            "\(name): init packet holds no init command"
        case .wrongFirmwareType(let name, let part, let found):
            "\(name): init packet type is \(found.map(String.init(describing:)) ?? "absent"), but the part is \(part.rawValue) (\(SecureInitPacket.FirmwareType(part)))"
        case .sizeFieldMismatch(let name, let field, let value, let expected, let imageName):
            "\(name): init packet has \(field) \(value), but \(imageName) needs \(expected)"
        case .hashMismatch(let name, let imageName):
            "\(name): init packet hash does not match \(imageName)"
        case .hashNotCheckable(let name, let reason):
            "\(name): init packet hash cannot be checked (\(reason))"
        case .invalidSignature(let name):
            "\(name): init packet signature does not verify with the given key"
        case .invalidBootValidationSignature(let name):
            "\(name): init packet boot validation signature does not verify with the given key"
        case .unsignedInitPacket(let name):
            "\(name): init packet is not signed, but a key was given"
        case .unverifiableSignature(let name, let reason):
            "\(name): init packet signature cannot be checked (\(reason))"
        case .imageTooLarge(let name, let size, let limit):
            "\(name): the data spans \(size) bytes, more than the \(limit) an image may have"
        case .invalidIntelHex(let name, let line, let cause):
            "\(name): line \(line): \(cause)"
        case .mcubootPackage:
            "manifest.json: an nRF Connect SDK package of MCUboot images (a 'files' list), not an nRF5 DFU package"
        }
    }
}
