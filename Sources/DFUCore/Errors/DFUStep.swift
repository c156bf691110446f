/// What the engine was doing, named for error messages and logs.
public enum DFUStep: Sendable, Hashable, CustomStringConvertible {
    /// Scanning for and connecting to the device.
    case connecting
    /// Enabling notifications or indications on a characteristic.
    case enablingNotifications
    /// Reading the Legacy DFU Version characteristic.
    case readingVersion
    /// Setting the bootloader's advertised name through buttonless opcode 0x02.
    case settingAdvertisingName
    /// Asking the application to reboot into its bootloader.
    case enteringBootloader
    /// Scanning for the bootloader after a jump or between parts.
    case findingBootloader
    /// Secure: Set PRN.
    case settingPRN
    /// Secure: Select of the command or data object.
    case selecting(SecureDFUObjectType)
    /// Secure: Create of the command or data object.
    case creating(SecureDFUObjectType)
    /// Writing the init packet to the packet characteristic.
    case sendingInitPacket
    /// Writing firmware to the packet characteristic.
    case sendingFirmware
    /// Secure: Calculate Checksum of the command or data object.
    case verifying(SecureDFUObjectType)
    /// Secure: Execute of the command object, i.e. the bootloader checking the init packet.
    case executingInitPacket
    /// Secure: Execute of a data object.
    case executingDataObject
    /// Secure: the last Execute, i.e. hash/signature validation and activation.
    case validatingFirmware
    /// Legacy: Start DFU with the image sizes.
    case startingDFU
    /// Legacy: Initialize DFU Parameters.
    case sendingInitParameters
    /// Legacy: Validate firmware.
    case validating
    /// Legacy: Activate and reset, or Secure waiting for the reset.
    case activating
    /// Sending Abort or Reset.
    case aborting
    /// An SMP (MCUmgr) request other than the upload's chunks.
    case smp(SMPCommand)

    /// A phrase for sentences, e.g. "sending the init packet".
    public var description: String {
        switch self {
        case .connecting: "connecting to the device"
        case .enablingNotifications: "enabling notifications"
        case .readingVersion: "reading the DFU Version characteristic"
        case .settingAdvertisingName: "setting the bootloader's advertising name"
        case .enteringBootloader: "asking the application to enter its bootloader"
        case .findingBootloader: "looking for the bootloader"
        case .settingPRN: "setting the packet receipt notification value"
        case .selecting(let type): "selecting the \(type)"
        case .creating(let type): "creating the \(type)"
        case .sendingInitPacket: "sending the init packet"
        case .sendingFirmware: "sending the firmware"
        case .verifying(let type): "verifying the \(type)'s checksum"
        case .executingInitPacket: "executing the init packet"
        case .executingDataObject: "executing a data object"
        case .validatingFirmware: "validating the firmware"
        case .startingDFU: "starting DFU"
        case .sendingInitParameters: "sending the init packet"
        case .validating: "validating the firmware"
        case .activating: "activating the firmware"
        case .aborting: "aborting"
        case .smp(let command):
            switch command {
            case .echo: "sending an SMP echo"
            case .reset: "resetting the device"
            case .parameters: "reading the MCUmgr parameters"
            case .bootloaderInfo: "reading the bootloader's mode"
            case .imageState: "reading the image list"
            case .setImageState: "marking the image for test or confirming it"
            case .upload: "sending the firmware"
            case .erase: "erasing the image slot"
            case .slotInfo: "reading the slot information"
            }
        }
    }
}
