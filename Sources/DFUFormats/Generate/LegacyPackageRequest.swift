/// What `dfu pkg generate --dfu-ver 0.5|0.6` puts into a Legacy DFU package: the values
/// adafruit-nrfutil 0.5.3.post16's `dfu genpkg` (like Nordic's nrfutil 0.5.x) hands to its
/// `Package`. A nil field is left out of the init packet and the manifest (`none` on the command line).
public struct LegacyPackageRequest: Sendable {
    public var application: SecurePackageRequest.Firmware?
    public var bootloader: SecurePackageRequest.Firmware?
    public var softdevice: SecurePackageRequest.Firmware?
    /// `device_type` (16 bits), default 0xFFFF.
    public var deviceType: UInt16?
    /// `device_revision` (16 bits), default 0xFFFF.
    public var deviceRevision: UInt16?
    /// `application_version` (32 bits), default 0xFFFFFFFF.
    public var applicationVersion: UInt32?
    /// `softdevice_req` in the order given, default [0xFFFE]; empty for `--sd-req none`.
    public var softdeviceRequirements: [UInt16]?
    /// 0.5 (CRC-16 only) or 0.6 (extended packet id 0, then the CRC-16).
    public var withExtendedPacketID: Bool

    public init(
        application: SecurePackageRequest.Firmware? = nil, bootloader: SecurePackageRequest.Firmware? = nil,
        softdevice: SecurePackageRequest.Firmware? = nil, deviceType: UInt16? = 0xFFFF, deviceRevision: UInt16? = 0xFFFF,
        applicationVersion: UInt32? = 0xFFFF_FFFF, softdeviceRequirements: [UInt16]? = [0xFFFE], withExtendedPacketID: Bool = false
    ) {
        self.application = application
        self.bootloader = bootloader
        self.softdevice = softdevice
        self.deviceType = deviceType
        self.deviceRevision = deviceRevision
        self.applicationVersion = applicationVersion
        self.softdeviceRequirements = softdeviceRequirements
        self.withExtendedPacketID = withExtendedPacketID
    }
}
