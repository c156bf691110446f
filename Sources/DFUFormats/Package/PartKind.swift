/// What one part of a DFU package replaces on the device.
public enum PartKind: String, Sendable, Hashable, CaseIterable, Codable {
    case softdeviceBootloader = "softdevice_bootloader"
    case softdevice
    case bootloader
    case application

    /// Whether this part is a system part (SoftDevice and/or bootloader), sent before the application.
    public var isSystem: Bool { self != .application }

    /// The image type bits of Legacy DFU's Start DFU request (SoftDevice 1, bootloader 2, application 4).
    public var legacyImageType: UInt8 {
        switch self {
        case .softdevice: 0x01
        case .bootloader: 0x02
        case .softdeviceBootloader: 0x03
        case .application: 0x04
        }
    }
}
