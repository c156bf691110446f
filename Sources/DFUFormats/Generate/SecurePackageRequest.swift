/// What `dfu pkg generate` is asked to put into a Secure DFU package, with every option already
/// read and checked (the values nrfutil 6.1.7's `__main__.generate` hands to `Package`).
public struct SecurePackageRequest: Sendable {
    /// A firmware file: its path as the user named it, and its contents.
    public struct Firmware: Sendable {
        public let path: String
        public let bytes: [UInt8]

        public init(path: String, bytes: [UInt8]) {
            self.path = path
            self.bytes = bytes
        }

        /// The last path component (`os.path.basename`).
        public var baseName: String {
            guard let slash = path.lastIndex(of: "/") else { return path }
            return String(path[path.index(after: slash)...])
        }
    }

    public var application: Firmware?
    public var bootloader: Firmware?
    public var softdevice: Firmware?
    /// `fw_version` of the application (`--application-version[-string]`).
    public var applicationVersion: UInt32
    /// `fw_version` of the bootloader and of a combined SoftDevice+bootloader image.
    public var bootloaderVersion: UInt32
    /// `hw_version` of every part.
    public var hardwareVersion: UInt32
    /// `--sd-req` in the order given (empty when absent).
    public var softdeviceRequirements: [UInt32]
    /// `--sd-id` in the order given, nil when absent.
    public var softdeviceIDs: [UInt32]?
    /// Boot validation of the application (`--app-boot-validation`).
    public var applicationBootValidation: SecureInitPacket.ValidationType
    /// Boot validation of the SoftDevice (`--sd-boot-validation`).
    public var softdeviceBootValidation: SecureInitPacket.ValidationType
    /// `is_debug` of every part (`--debug-mode`).
    public var isDebug: Bool
    /// The application is an EXTERNAL_APPLICATION (`--external-app`).
    public var isExternalApplication: Bool

    public init(
        application: Firmware? = nil, bootloader: Firmware? = nil, softdevice: Firmware? = nil,
        applicationVersion: UInt32 = 0xFFFF_FFFF, bootloaderVersion: UInt32 = 0xFFFF_FFFF,
        hardwareVersion: UInt32 = 0xFFFF_FFFF, softdeviceRequirements: [UInt32] = [], softdeviceIDs: [UInt32]? = nil,
        applicationBootValidation: SecureInitPacket.ValidationType = .generatedCRC,
        softdeviceBootValidation: SecureInitPacket.ValidationType = .generatedCRC,
        isDebug: Bool = false, isExternalApplication: Bool = false
    ) {
        self.application = application
        self.bootloader = bootloader
        self.softdevice = softdevice
        self.applicationVersion = applicationVersion
        self.bootloaderVersion = bootloaderVersion
        self.hardwareVersion = hardwareVersion
        self.softdeviceRequirements = softdeviceRequirements
        self.softdeviceIDs = softdeviceIDs
        self.applicationBootValidation = applicationBootValidation
        self.softdeviceBootValidation = softdeviceBootValidation
        self.isDebug = isDebug
        self.isExternalApplication = isExternalApplication
    }
}
