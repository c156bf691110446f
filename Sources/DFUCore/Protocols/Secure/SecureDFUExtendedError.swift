import DFUFormats
/// The extended error byte that follows result 0x0B in a Secure DFU response.
public struct SecureDFUExtendedError: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The byte on the wire.
    public let rawValue: UInt8
    /// Wraps a byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x00: no extended error was set (a bootloader bug).
    public static let noError = SecureDFUExtendedError(rawValue: 0x00)
    /// 0x01: invalid error code (development builds only).
    public static let invalidErrorCode = SecureDFUExtendedError(rawValue: 0x01)
    /// 0x02: wrong command format.
    public static let wrongCommandFormat = SecureDFUExtendedError(rawValue: 0x02)
    /// 0x03: the command parsed but is unknown.
    public static let unknownCommand = SecureDFUExtendedError(rawValue: 0x03)
    /// 0x04: the init command is invalid (wrong type or a required field missing).
    public static let initCommandInvalid = SecureDFUExtendedError(rawValue: 0x04)
    /// 0x05: firmware version too low.
    public static let firmwareVersionFailure = SecureDFUExtendedError(rawValue: 0x05)
    /// 0x06: hardware version mismatch.
    public static let hardwareVersionFailure = SecureDFUExtendedError(rawValue: 0x06)
    /// 0x07: the installed SoftDevice is not in `sd_req`.
    public static let softDeviceVersionFailure = SecureDFUExtendedError(rawValue: 0x07)
    /// 0x08: the bootloader requires a signed init packet.
    public static let signatureMissing = SecureDFUExtendedError(rawValue: 0x08)
    /// 0x09: hash type not supported.
    public static let wrongHashType = SecureDFUExtendedError(rawValue: 0x09)
    /// 0x0A: the hash could not be calculated.
    public static let hashFailed = SecureDFUExtendedError(rawValue: 0x0A)
    /// 0x0B: signature type unknown.
    public static let wrongSignatureType = SecureDFUExtendedError(rawValue: 0x0B)
    /// 0x0C: the image hash does not match the init packet (or the signature failed).
    public static let verificationFailed = SecureDFUExtendedError(rawValue: 0x0C)
    /// 0x0D: not enough space for the image.
    public static let insufficientSpace = SecureDFUExtendedError(rawValue: 0x0D)
    /// 0x0E: the same firmware is already present.
    public static let firmwareAlreadyPresent = SecureDFUExtendedError(rawValue: 0x0E)

    /// Every extended error the SDKs define, in code order.
    public static let allKnown: [SecureDFUExtendedError] = (0x00...0x0E).map { SecureDFUExtendedError(rawValue: $0) }

    /// The meaning, e.g. "firmware version too low".
    public var meaning: String {
        switch self {
        case .noError: "no extended error was set by the bootloader"
        case .invalidErrorCode: "invalid error code"
        case .wrongCommandFormat: "wrong command format"
        case .unknownCommand: "unknown command"
        case .initCommandInvalid: "init command invalid (wrong update type or a required field missing)"
        case .firmwareVersionFailure: "firmware version too low"
        case .hardwareVersionFailure: "hardware version mismatch"
        case .softDeviceVersionFailure: "the installed SoftDevice is not in the package's sd_req list"
        case .signatureMissing: "the bootloader requires a signed init packet"
        case .wrongHashType: "hash type not supported"
        case .hashFailed: "the image hash could not be calculated"
        case .wrongSignatureType: "signature type not supported"
        case .verificationFailed: "the received image does not match the hash or signature in the init packet"
        case .insufficientSpace: "not enough space on the device for the image"
        case .firmwareAlreadyPresent: "this firmware is already present on the device"
        default: "unknown extended error"
        }
    }

    /// What the user can try, or nil when there is nothing specific.
    public var hint: String? {
        switch self {
        case .firmwareVersionFailure:
            "rebuild the package with a higher application version (nrfutil pkg generate --application-version; a bootloader needs a strictly higher --bootloader-version)"
        case .hardwareVersionFailure: "rebuild the package for the device's hardware version (nrfutil pkg generate --hw-version)"
        case .softDeviceVersionFailure: "rebuild the package with the installed SoftDevice's id in its sd_req (nrfutil pkg generate --sd-req)"
        case .signatureMissing, .wrongSignatureType: "sign the package with the key the bootloader was built with"
        case .verificationFailed: "rebuild the package; if it persists, check the signing key"
        case .insufficientSpace: "the image is too big for this device's flash layout"
        case .firmwareAlreadyPresent: "the device already runs this firmware"
        case .initCommandInvalid: "rebuild the package with nrfutil; the init packet does not match the image type"
        default: nil
        }
    }

    /// The meaning with its code, e.g. "firmware version too low (extended error 0x05)".
    public var description: String { meaning + " (extended error 0x" + [rawValue].hexDescription + ")" }
}
