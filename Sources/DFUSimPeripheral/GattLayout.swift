public import DBus
public import DFUSimStandIn
public import DFUSimulator

/// Where each service and characteristic of a simulated firmware lives on the bus, and how
/// bluetoothd must see it (UUID, flags, which Acquire* methods it offers).
///
/// Pure: it only computes paths and flags, so it is tested without a bus.
public struct GattLayout: Sendable, Hashable {
    /// One exported characteristic.
    public struct Characteristic: Sendable, Hashable {
        /// Its object path (`…/serviceN/charM`).
        public var path: ObjectPath
        /// The UUID the simulated firmware knows it by (what its handlers are called with).
        public var simulatedUUID: String
        /// The UUID exported to bluetoothd: the simulated one, or a stand-in when that is not a valid UUID.
        public var uuid: String
        /// `GattCharacteristic1.Flags`, e.g. `["write", "notify"]`.
        public var flags: [String]
        /// Whether it offers AcquireWrite (exports `WriteAcquired`).
        public var offersAcquireWrite: Bool
        /// Whether it offers AcquireNotify (exports `NotifyAcquired`).
        public var offersAcquireNotify: Bool
        /// Whether it notifies or indicates (a CCCD is added), whatever security its flags ask.
        public var canNotify: Bool { flags.contains { $0.hasSuffix("notify") || $0.hasSuffix("indicate") } }
        /// How a write arrives: bluetoothd 5.66 does not say, so it follows from the flags.
        public var writeType: SimulatedWriteType {
            flags.contains("write-without-response") && !flags.contains("write") ? .command : .request
        }
    }

    /// One exported primary service.
    public struct Service: Sendable, Hashable {
        /// Its object path (`…/serviceN`).
        public var path: ObjectPath
        /// Its UUID.
        public var uuid: String
        /// Its characteristics.
        public var characteristics: [Characteristic]
    }

    /// The application's root, where the ObjectManager is served and which is registered.
    public var root: ObjectPath
    /// The services, in the firmware's order.
    public var services: [Service]

    /// Lays out `services` under `root`.
    ///
    /// - Parameters:
    ///   - acquireWrite: offer AcquireWrite on write-without-response characteristics.
    ///   - acquireNotify: offer AcquireNotify on notify characteristics (not on indicate ones).
    ///   - secured: characteristics (simulated UUIDs, upper case) whose writes and CCCD need `security`.
    public init(
        services simulated: [SimulatedService], root: ObjectPath, acquireWrite: Bool, acquireNotify: Bool,
        secured: Set<String> = [], security: DevicePairing.Security = .none
    ) throws(DBusError) {
        self.root = root
        var services: [Service] = []
        for (serviceIndex, service) in simulated.enumerated() {
            let servicePath = try root.appending("service\(serviceIndex)")
            var characteristics: [Characteristic] = []
            for (index, characteristic) in service.characteristics.enumerated() {
                var flags = Self.flags(of: characteristic.properties)
                if secured.contains(characteristic.uuid.uppercased()) {
                    flags = Self.flags(flags, requiring: security)
                }
                let exported =
                    Self.isValidUUID(characteristic.uuid)
                    ? characteristic.uuid : Self.standInUUID(service: serviceIndex, characteristic: index)
                characteristics.append(
                    Characteristic(
                        path: try servicePath.appending("char\(index)"),
                        simulatedUUID: characteristic.uuid,
                        uuid: exported,
                        flags: flags,
                        offersAcquireWrite: acquireWrite && characteristic.properties.contains(.writeWithoutResponse),
                        offersAcquireNotify: acquireNotify && characteristic.properties.contains(.notify)))
            }
            services.append(Service(path: servicePath, uuid: service.uuid, characteristics: characteristics))
        }
        self.services = services
    }

    /// Every characteristic, service by service.
    public var characteristics: [Characteristic] { services.flatMap(\.characteristics) }

    /// The characteristic at `path`, if any.
    public func characteristic(at path: ObjectPath) -> Characteristic? {
        characteristics.first { $0.path == path }
    }

    /// The characteristic the firmware knows as `uuid`, if any.
    public func characteristic(simulatedUUID uuid: String) -> Characteristic? {
        characteristics.first { $0.simulatedUUID == uuid.uppercased() }
    }

    /// BlueZ's flag names for ATT characteristic properties, in the order of the property bits.
    public static func flags(of properties: SimulatedCharacteristic.Properties) -> [String] {
        let names: [(SimulatedCharacteristic.Properties, String)] = [
            (.read, "read"), (.writeWithoutResponse, "write-without-response"), (.write, "write"),
            (.notify, "notify"), (.indicate, "indicate"),
        ]
        return names.filter { properties.contains($0.0) }.map(\.1)
    }

    /// The flags with writes and notification subscriptions needing `security`: `encrypt-write` and
    /// `encrypt-notify`, or `encrypt-authenticated-write` and `encrypt-authenticated-notify`, which BlueZ 5.66
    /// turns into write permission and CCCD write permission at that level (`src/gatt-database.c`
    /// `parse_chrc_flags`, `database_add_ccc`). The `*-write` flags also set the Write property: BlueZ has
    /// no flag that asks security of write commands alone.
    static func flags(_ flags: [String], requiring security: DevicePairing.Security) -> [String] {
        let level: String
        switch security {
        case .none: return flags
        case .encrypted: level = "encrypt-"
        case .authenticated: level = "encrypt-authenticated-"
        }
        var result: [String] = []
        for flag in flags {
            switch flag {
            case "write", "write-without-response":
                result.append(flag)
                if !result.contains(level + "write") { result.append(level + "write") }
            case "notify", "indicate": result.append(level + flag)
            default: result.append(flag)
            }
        }
        return result
    }

    /// Whether `text` is a 128-bit UUID in the 8-4-4-4-12 hex form bluetoothd accepts.
    public static func isValidUUID(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return false }
        return groups.allSatisfy { $0.allSatisfy(\.isHexDigit) }
    }

    /// A stable vendor UUID for a characteristic whose simulated UUID is only a label.
    static func standInUUID(service: Int, characteristic: Int) -> String {
        let suffix = String(service * 256 + characteristic, radix: 16, uppercase: true)
        return "DF000000-0000-1000-8000-" + String(repeating: "0", count: 12 - suffix.count) + suffix
    }
}
