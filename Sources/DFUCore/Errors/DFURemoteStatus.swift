/// A failure status sent by the device, in the terms of the protocol that sent it.
public enum DFURemoteStatus: Sendable, Hashable, CustomStringConvertible {
    /// A Secure DFU result, with its extended error when the result is 0x0B.
    case secure(SecureDFUResultCode, SecureDFUExtendedError?)
    /// A Legacy DFU status.
    case legacy(LegacyDFUStatus)
    /// A buttonless status.
    case buttonless(ButtonlessStatus)
    /// An SMP (MCUmgr) error answer, named.
    case smp(SMPError)
    /// What an SMP device's image list shows went wrong with an image.
    case smpImage(SMPImageFault)

    /// e.g. "firmware version too low (extended error 0x05)" or "operation not permitted (0x08)".
    public var description: String {
        switch self {
        case .secure(_, let extended?): extended.description
        case .secure(let result, nil): result.description
        case .legacy(let status): status.description
        case .buttonless(let status): status.description
        case .smp(let error): error.description
        case .smpImage(let fault): fault.description
        }
    }
}
