/// The simulated device's flash: the installed images and their versions.
public struct SimulatedStorage: Sendable, Hashable {
    /// The application image, nil when none is valid.
    public var application: [UInt8]?
    /// The application's firmware version.
    public var applicationVersion: UInt32
    /// The SoftDevice image (nil: the factory one).
    public var softdevice: [UInt8]?
    /// The installed SoftDevice's FWID, checked against `sd_req`.
    public var softdeviceID: UInt32
    /// The FWID a SoftDevice update installs.
    public var softdeviceIDAfterUpdate: UInt32
    /// The bootloader image (nil: the factory one).
    public var bootloader: [UInt8]?
    /// The bootloader's version.
    public var bootloaderVersion: UInt32
    /// Legacy bootloader settings: a DFU was interrupted, so Start DFU answers "invalid state" until Reset.
    public var legacyTransferInterrupted = false

    /// Makes storage; by default an application v1 on SoftDevice S140 7.x (0x0100), bootloader v1.
    public init(application: [UInt8]? = [0xA5], applicationVersion: UInt32 = 1, softdeviceID: UInt32 = 0x0100,
                softdeviceIDAfterUpdate: UInt32? = nil, bootloaderVersion: UInt32 = 1) {
        self.application = application
        self.applicationVersion = applicationVersion
        self.softdeviceID = softdeviceID
        self.softdeviceIDAfterUpdate = softdeviceIDAfterUpdate ?? softdeviceID
        self.bootloaderVersion = bootloaderVersion
    }
}
