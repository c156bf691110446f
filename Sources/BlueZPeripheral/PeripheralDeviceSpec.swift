public import DFUCore
public import DFUSimulator

/// Which simulated target the peripheral poses as, read from `--device SPEC`.
///
/// The SPEC is a kind, optionally followed by comma-separated `key=value` settings:
/// `secure`, `legacy,name=MyBoot`, `buttonless,app-name=Sensor`, `buttonless-bonded`.
public struct PeripheralDeviceSpec: Sendable, Hashable {
    /// What the device runs when it starts.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A Secure DFU bootloader (FE59 with 8EC90001/8EC90002) in DFU mode, no application.
        case secure
        /// A Legacy DFU bootloader (1530 with 1531/1532/1534) in DFU mode, no application.
        case legacy
        /// An application with buttonless DFU without bonds (8EC90003); its Secure bootloader
        /// comes back at another address (another adapter here).
        case buttonless
        /// An application with buttonless DFU with bonds (8EC90004); its bootloader keeps the address.
        case buttonlessBonded = "buttonless-bonded"
        /// An application with the experimental buttonless service (8E400001, SDK 12).
        case buttonlessExperimental = "buttonless-experimental"
        /// A Legacy application with the DFU service (jump to the Legacy bootloader).
        case legacyApplication = "legacy-app"

        /// Whether the device starts in its application (rather than its bootloader).
        public var startsInApplication: Bool {
            switch self {
            case .secure, .legacy: false
            case .buttonless, .buttonlessBonded, .buttonlessExperimental, .legacyApplication: true
            }
        }
    }

    /// What the device runs when it starts.
    public var kind: Kind
    /// The bootloader's default advertised name (`name=`), `DfuTarg` unless set.
    public var bootloaderName: String
    /// The application's advertised name (`app-name=`), nil for the simulator's default.
    public var applicationName: String?
    /// Whether the central counts as bonded (`bonded=yes|no`); on by default for `buttonless-bonded`.
    public var isBonded: Bool

    /// The settings a SPEC may carry.
    static let keys = ["name", "app-name", "bonded"]

    /// Reads a SPEC such as `buttonless,app-name=Sensor`.
    public init(parsing text: String) throws(PeripheralError) {
        let fields = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard let first = fields.first, let kind = Kind(rawValue: first) else {
            let known = Kind.allCases.map(\.rawValue).joined(separator: ", ")
            throw .badDeviceSpec("\"\(text)\" does not start with a known kind (\(known))")
        }
        self.kind = kind
        bootloaderName = "DfuTarg"
        applicationName = nil
        isBonded = kind == .buttonlessBonded
        for field in fields.dropFirst() {
            guard let equals = field.firstIndex(of: "=") else {
                throw .badDeviceSpec("\"\(field)\" is not key=value")
            }
            let key = String(field[..<equals])
            let value = String(field[field.index(after: equals)...])
            switch key {
            case "name":
                try Self.checkName(value, key: key)
                bootloaderName = value
            case "app-name":
                try Self.checkName(value, key: key)
                applicationName = value
            case "bonded":
                guard let flag = ["yes": true, "no": false][value] else {
                    throw .badDeviceSpec("bonded= takes yes or no, not \"\(value)\"")
                }
                isBonded = flag
            default:
                throw .badDeviceSpec("unknown setting \"\(key)\" (known: \(Self.keys.joined(separator: ", ")))")
            }
        }
    }

    /// An advertised name must fit a legacy advertisement next to one 128-bit UUID: 1–20 UTF-8 bytes.
    private static func checkName(_ name: String, key: String) throws(PeripheralError) {
        guard (1...20).contains(name.utf8.count) else {
            throw .badDeviceSpec("\(key)= must be 1 to 20 bytes, not \(name.utf8.count)")
        }
    }

    /// The simulated device, with its chip at `address` (the adapter's address).
    ///
    /// Flash timings are not modelled here: the link is real, so the bootloader's receive
    /// buffers should never be the reason a test fails.
    public func makePeripheral(address: DFUDeviceAddress) -> SimulatedPeripheral {
        var secure = SecureBootloaderConfiguration()
        secure.defaultName = bootloaderName
        secure.requiresBonds = kind == .buttonlessBonded
        var legacy = LegacyBootloaderConfiguration()
        legacy.name = bootloaderName
        let bootloader: SimulatedDeviceProfile.Bootloader
        let application: SimulatedDeviceProfile.Application
        switch kind {
        case .secure:
            bootloader = .secure(secure)
            application = .plain
        case .legacy:
            bootloader = .legacy(legacy)
            application = .plain
        case .buttonless, .buttonlessBonded, .buttonlessExperimental:
            var app = SimulatedButtonlessApplication(
                variant: kind == .buttonless ? .withoutBonds : kind == .buttonlessBonded ? .withBonds : .experimental)
            if let applicationName { app.advertisedName = applicationName }
            bootloader = .secure(secure)
            application = .buttonless(app)
        case .legacyApplication:
            var app = SimulatedLegacyApplication()
            if let applicationName { app.advertisedName = applicationName }
            bootloader = .legacy(legacy)
            application = .legacy(app)
        }
        let profile = SimulatedDeviceProfile(
            address: address, bootloader: bootloader, application: application, isBonded: isBonded)
        return SimulatedPeripheral(profile: profile, startInBootloader: !kind.startsInApplication)
    }
}
