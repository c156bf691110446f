import DFUCore
import DFUCrypto
public import DFUSimStandIn
import DFUSimulator
import SystemSupport

/// `--device KIND[,address=…][,name=…][,key=value…]`, as `dfu-sim run`, `serve` and `peripheral` take it.
///
/// Keys: `address`, `name`, `hw_version`, `sd_id` (installed SoftDevice FWID), `sd_id_after`
/// (the FWID a SoftDevice update installs), `app_version`, `bl_version`, `signature=required`
/// or `public_key=FILE` (init packets must carry a signature this PEM key verifies), `legacy_version=MAJOR.MINOR|none`,
/// `max_image` (bytes), `rssi` (dBm), `service_changed=yes` (the device indicates Service Changed,
/// so the host's GATT cache is refreshed after a jump at the same address), `connect_delay_ms`
/// (real time every Connect takes before the link is up; Disconnect meanwhile cancels it), `uuid.ROLE=UUID`
/// (the device uses a custom UUID for ROLE, a ``DFUServiceUUIDs/Role`` name such as `secure-service`;
/// UUIDs as `FE59`, `0000FE59` or 128-bit).
extension SimulatedDeviceSpec {
    /// Parses a specification; `index` picks the default address.
    public init(parsing text: String, index: Int = 0) throws(StandInSpecError) {
        var fields = try SpecFields(text)
        guard fields.words.count == 1, let word = fields.words.first else {
            throw StandInSpecError("a device needs exactly one KIND (\(Self.kindList)), got '\(text)'")
        }
        guard let kind = SimulatedDeviceKind(rawValue: word.lowercased()) else {
            throw StandInSpecError("unknown device kind '\(word)' (one of \(Self.kindList))")
        }
        guard var address = Self.defaultAddress(index: index) else {
            throw StandInSpecError("no default address for device \(index + 1)")
        }
        if let text = fields.take("address") {
            guard let parsed = DFUDeviceAddress(text) else {
                throw StandInSpecError("address=\(text) is not AA:BB:CC:DD:EE:FF")
            }
            address = parsed
        }
        let name = fields.take("name")
        if let name, name.isEmpty || name.utf8.count > 29 {
            throw StandInSpecError("name=\(name) must be 1 to 29 bytes")
        }
        if kind.isSMP {
            // An nRF Connect SDK device: Zephyr's SMP server above MCUboot, with the keys of its configuration.
            let (configuration, pairing) = try Self.zephyrConfiguration(kind: kind, name: name, fields: &fields)
            let radio = try Self.radioFields(&fields)
            try fields.checkAllTaken(in: "--device \(text)")
            self.init(
                kind: kind, profile: .nrf52840Zephyr(address: address, configuration: configuration), storage: SimulatedStorage(),
                rssi: radio.rssi, indicatesServiceChanged: radio.indicatesServiceChanged, connectDelay: radio.connectDelay,
                uuids: DFUServiceUUIDs(), pairing: pairing)
            return
        }
        var (secure, legacy) = try Self.bootloaderFields(kind: kind, fields: &fields)
        let storage = try Self.storageFields(&fields)
        let radio = try Self.radioFields(&fields)
        let uuids = try Self.uuidFields(&fields)
        secure.uuids = uuids
        legacy.uuids = uuids
        try fields.checkAllTaken(in: "--device \(text)")
        self.init(
            kind: kind, profile: Self.nrf5Profile(kind: kind, name: name, address: address, secure: secure, legacy: legacy),
            storage: storage, rssi: radio.rssi, indicatesServiceChanged: radio.indicatesServiceChanged,
            connectDelay: radio.connectDelay, uuids: uuids, pairing: DevicePairing())
    }

    /// The nRF5 bootloaders' keys: `hw_version`, `signature`, `public_key`, `max_image`, `legacy_version`,
    /// `bl_extra_service`.
    private static func bootloaderFields(kind: SimulatedDeviceKind, fields: inout SpecFields) throws(StandInSpecError)
        -> (SecureBootloaderConfiguration, LegacyBootloaderConfiguration)
    {
        var secure = SecureBootloaderConfiguration()
        var legacy = LegacyBootloaderConfiguration()
        if let hardware = try fields.takeUInt32("hw_version") { secure.hardwareVersion = hardware }
        if try fields.takeFlag("signature_required") == true { secure.requiresSignature = true }
        if let signature = fields.take("signature") {
            guard signature == "required" || signature == "none" else {
                throw StandInSpecError("signature=\(signature) must be 'required' or 'none'")
            }
            secure.requiresSignature = signature == "required"
        }
        if let path = fields.take("public_key") {
            secure.publicKey = try Self.publicKey(at: path)
            secure.requiresSignature = true
        }
        if let maximum = try fields.takeInteger("max_image") {
            guard maximum > 0 else { throw StandInSpecError("max_image=\(maximum) must be positive") }
            secure.maximumImageSize = maximum
            legacy.maximumImageSize = maximum
        }
        if let version = fields.take("legacy_version") {
            if version == "none" {
                legacy.version = nil
            } else {
                let parts = version.split(separator: ".")
                guard parts.count == 2, let major = UInt8(parts[0]), let minor = UInt8(parts[1]) else {
                    throw StandInSpecError("legacy_version=\(version) must be MAJOR.MINOR or none")
                }
                legacy.version = LegacyDFUVersion(major: major, minor: minor)
            }
        }
        if let text = fields.take("bl_extra_service") {
            guard let uuid = DFUServiceUUIDs.Role.canonical(text) else {
                throw StandInSpecError("bl_extra_service=\(text) is not a UUID (180A, 0000180A or 128-bit)")
            }
            guard kind == .legacy || kind == .legacyApp else {
                throw StandInSpecError("bl_extra_service applies to Legacy bootloaders (legacy, legacy-app)")
            }
            legacy.otherServices = [.other(uuid)]
        }
        return (secure, legacy)
    }

    /// The flash's keys: `sd_id`, `sd_id_after`, `app_version`, `bl_version`.
    private static func storageFields(_ fields: inout SpecFields) throws(StandInSpecError) -> SimulatedStorage {
        var storage = SimulatedStorage()
        if let id = try fields.takeUInt32("sd_id") {
            storage.softdeviceID = id
            storage.softdeviceIDAfterUpdate = id
        }
        if let id = try fields.takeUInt32("sd_id_after") { storage.softdeviceIDAfterUpdate = id }
        if let version = try fields.takeUInt32("app_version") { storage.applicationVersion = version }
        if let version = try fields.takeUInt32("bl_version") { storage.bootloaderVersion = version }
        return storage
    }

    /// The `uuid.ROLE=UUID` keys over Nordic's UUIDs.
    private static func uuidFields(_ fields: inout SpecFields) throws(StandInSpecError) -> DFUServiceUUIDs {
        var uuids = DFUServiceUUIDs()
        for (name, value) in fields.take(prefix: "uuid") {
            guard let role = DFUServiceUUIDs.Role.allCases.first(where: { $0.rawValue.replacingDashes == name }) else {
                throw StandInSpecError("uuid.\(name) is not a role (one of \(DFUServiceUUIDs.Role.names))")
            }
            guard let uuid = DFUServiceUUIDs.Role.canonical(value) else {
                throw StandInSpecError("uuid.\(name)=\(value) is not a UUID (FE59, 0000FE59 or 128-bit)")
            }
            uuids[keyPath: role.keyPath] = uuid
        }
        return uuids
    }

    /// An nRF5 kind's bootloader and application.
    private static func nrf5Profile(
        kind: SimulatedDeviceKind, name: String?, address: DFUDeviceAddress,
        secure: SecureBootloaderConfiguration, legacy: LegacyBootloaderConfiguration
    ) -> SimulatedDeviceProfile {
        var secure = secure
        var legacy = legacy
        let bootloader: SimulatedDeviceProfile.Bootloader
        let application: SimulatedDeviceProfile.Application
        switch kind {
        case .secure:
            if let name { secure.defaultName = name }
            // A device that starts in its bootloader advertises at the given address (and so does
            // the application it installs).
            secure.requiresBonds = true
            bootloader = .secure(secure)
            application = .plain
        case .legacy:
            if let name { legacy.name = name }
            bootloader = .legacy(legacy)
            application = .plain
        case .buttonless, .buttonlessBonded, .buttonlessExperimental:
            if kind == .buttonlessBonded { secure.requiresBonds = true }
            var app = SimulatedButtonlessApplication(
                variant: kind == .buttonless ? .withoutBonds : kind == .buttonlessBonded ? .withBonds : .experimental)
            if let name { app.advertisedName = name }
            app.uuids = secure.uuids
            bootloader = .secure(secure)
            application = .buttonless(app)
        case .smp, .smpAuth, .smpNRF5340, .smpLoader, .smpLoaderBareMetal:
            preconditionFailure("an SMP kind's profile is made before the nRF5 keys are read")
        case .legacyApp:
            var app = SimulatedLegacyApplication(hasVersionCharacteristic: legacy.version != nil)
            if let name { app.advertisedName = name }
            app.uuids = legacy.uuids
            bootloader = .legacy(legacy)
            application = .legacy(app)
        }
        return SimulatedDeviceProfile(address: address, bootloader: bootloader, application: application)
    }

    /// The keys every kind takes about its radio: `rssi`, `service_changed`, `connect_delay_ms`.
    static func radioFields(_ fields: inout SpecFields) throws(StandInSpecError) -> (
        rssi: Int16, indicatesServiceChanged: Bool, connectDelay: Duration
    ) {
        let rssi = try fields.takeInteger("rssi") ?? -55
        guard let rssiValue = Int16(exactly: rssi), rssi < 0 else {
            throw StandInSpecError("rssi=\(rssi) must be negative dBm")
        }
        let serviceChanged = try fields.takeFlag("service_changed") ?? false
        let connectDelay = try fields.takeInteger("connect_delay_ms") ?? 0
        guard (0...600_000).contains(connectDelay) else {
            throw StandInSpecError("connect_delay_ms=\(connectDelay) must be 0 to 600000")
        }
        return (rssiValue, serviceChanged, .milliseconds(connectDelay))
    }

    /// The PEM bytes of the ECDSA P-256 key at `path`, checked to parse.
    private static func publicKey(at path: String) throws(StandInSpecError) -> [UInt8] {
        let bytes = try pemFile(at: path)
        do {
            _ = try ECDSAP256.PublicKey(pem: bytes)
        } catch {
            throw StandInSpecError("public_key=\(path) is not an ECDSA P-256 key in PEM (\(error.description))")
        }
        return bytes
    }

    /// The bytes of the file at `path` for `public_key=`: a regular file only, opened without
    /// waiting (a FIFO is refused, not waited on), as `dfu` reads its inputs (``FileReader``).
    static func pemFile(at path: String) throws(StandInSpecError) -> [UInt8] {
        guard !path.isEmpty else { throw StandInSpecError("public_key needs a FILE") }
        do {
            return try FileReader.read(path)
        } catch {
            throw StandInSpecError("public_key=\(path): cannot read it (\(error.reason))")
        }
    }

    static var kindList: String { SimulatedDeviceKind.allCases.map(\.rawValue).joined(separator: ", ") }
}
