import DBus
import DFUSimulator

/// The GATT objects bluetoothd exports for one device: paths named after attribute handles
/// (`service000a/char000b/desc000d`), as in bluetoothd. They outlive the link: with the default
/// `Cache = always` bluetoothd keeps a device's GATT database, and its objects, until a
/// re-discovery finds a service changed, Service Changed is indicated or the device is removed
/// (BlueZ 5.66 `src/device.c` `gatt_cache_is_enabled`, `gatt_cache_cleanup`).
struct GATTTable: Sendable {
    /// One exported characteristic and its client state.
    struct Characteristic: Sendable {
        let path: ObjectPath
        let servicePath: ObjectPath
        /// Upper-case UUID, as the simulator names it.
        let uuid: String
        let properties: SimulatedCharacteristic.Properties
        /// Whether its value may be read (its read permission).
        let readable: Bool
        /// The Client Characteristic Configuration descriptor, when notify or indicate is allowed.
        let descriptorPath: ObjectPath?
        /// The value handle (the declaration's handle + 1).
        let handle: UInt16
        /// Clients (bus names) that called StartNotify.
        var notifySenders: Set<String> = []
        var notifyChannel: SequencedPacketChannel?
        var writeChannel: SequencedPacketChannel?
        /// The last value read or notified.
        var value: [UInt8] = []

        var canNotify: Bool { properties.contains(.notify) || properties.contains(.indicate) }
        var isNotifying: Bool { !notifySenders.isEmpty || notifyChannel != nil }

        /// The `Flags` strings of bluetoothd.
        var flags: [String] {
            var flags: [String] = []
            if properties.contains(.read) { flags.append("read") }
            if properties.contains(.writeWithoutResponse) { flags.append("write-without-response") }
            if properties.contains(.write) { flags.append("write") }
            if properties.contains(.notify) { flags.append("notify") }
            if properties.contains(.indicate) { flags.append("indicate") }
            return flags
        }
    }

    /// One exported service.
    struct Service: Sendable {
        let path: ObjectPath
        let uuid: String
        let characteristics: [ObjectPath]
        /// The service declaration's handle.
        let handle: UInt16
        /// The service's last handle (its End Group Handle in primary service discovery).
        let endHandle: UInt16

        /// Whether a re-discovery finds `other` where this one was: bluetoothd keeps a cached service
        /// only when start handle, end handle and UUID all match (`src/shared/gatt-db.c`
        /// `gatt_db_insert_service`).
        func matches(_ other: Service) -> Bool {
            handle == other.handle && endHandle == other.endHandle && uuid.uppercased() == other.uuid.uppercased()
        }
    }

    /// The Generic Attribute service every nRF5 firmware has (bluetoothd shows it; GAP is hidden).
    static let genericAttribute = SimulatedService(
        uuid: "00001801-0000-1000-8000-00805F9B34FB",
        characteristics: [
            SimulatedCharacteristic(uuid: "00002A05-0000-1000-8000-00805F9B34FB", properties: [.indicate])
        ])

    private(set) var services: [Service] = []
    var characteristics: [ObjectPath: Characteristic] = [:]
    /// Descriptor path → its characteristic's path.
    private(set) var descriptors: [ObjectPath: ObjectPath] = [:]
    /// Descriptor path → its handle.
    private(set) var descriptorHandles: [ObjectPath: UInt16] = [:]
    /// The service UUIDs, lower case, for Device1.UUIDs: every primary service, GAP included
    /// (bluetoothd hides the GAP service's objects, which its GAP plugin claims, but lists its UUID).
    var serviceUUIDs: [String] {
        Array(Set([Self.genericAccessUUID] + services.map { $0.uuid.lowercased() })).sorted()
    }

    /// The Generic Access service (GAP, handles 0x0001–0x0009 on an nRF5), present in every Nordic firmware.
    static let genericAccessUUID = "00001800-0000-1000-8000-00805f9b34fb"

    /// An empty table.
    private init() {}

    /// Lays out `services` (after the Generic Attribute service) from handle 0x000A, as an nRF5 does after GAP.
    init(services simulated: [SimulatedService], device: ObjectPath) throws(DBusError) {
        var handle = 0x000A
        for service in [Self.genericAttribute] + simulated {
            let servicePath = try device.appending("service" + Self.hex(handle))
            let serviceHandle = UInt16(truncatingIfNeeded: handle)
            handle += 1
            var characteristicPaths: [ObjectPath] = []
            for characteristic in service.characteristics {
                let path = try servicePath.appending("char" + Self.hex(handle))
                let valueHandle = UInt16(truncatingIfNeeded: handle + 1)
                handle += 2
                var descriptor: ObjectPath?
                if characteristic.properties.contains(.notify) || characteristic.properties.contains(.indicate) {
                    let descriptorPath = try path.appending("desc" + Self.hex(handle))
                    handle += 1
                    descriptors[descriptorPath] = path
                    descriptorHandles[descriptorPath] = UInt16(truncatingIfNeeded: handle - 1)
                    descriptor = descriptorPath
                }
                characteristics[path] = Characteristic(
                    path: path, servicePath: servicePath, uuid: characteristic.uuid,
                    properties: characteristic.properties, readable: characteristic.readable,
                    descriptorPath: descriptor, handle: valueHandle)
                characteristicPaths.append(path)
            }
            services.append(
                Service(
                    path: servicePath, uuid: service.uuid, characteristics: characteristicPaths, handle: serviceHandle,
                    endHandle: UInt16(truncatingIfNeeded: handle - 1)))
        }
    }

    /// What bluetoothd holds after re-discovering `fresh` over this cached table, and the objects that
    /// change: a cached service whose start handle, end handle and UUID match a discovered one is kept
    /// with its characteristics (not discovered again); the others are removed and the new ones added
    /// (BlueZ 5.66 `src/shared/gatt-client.c` `discovery_parse_services`, `discovery_found_service`,
    /// `discovery_op_complete`). With `keepingMatches` false (a Service Changed indication covering the
    /// services) everything is discovered again.
    func reconciled(with fresh: GATTTable, keepingMatches: Bool) -> (
        table: GATTTable, removed: [ObjectPath], added: [ObjectPath]
    ) {
        var result = GATTTable()
        var kept: Set<ObjectPath> = []
        var added: [ObjectPath] = []
        for service in fresh.services {
            if keepingMatches, let cached = services.first(where: { $0.matches(service) }) {
                result.adopt(cached, from: self)
                kept.insert(cached.path)
            } else {
                result.adopt(service, from: fresh)
                added += fresh.paths(of: service)
            }
        }
        var removed: [ObjectPath] = []
        for service in services where !kept.contains(service.path) {
            removed += paths(of: service).reversed()
        }
        return (result, removed, added)
    }

    /// Copies `service` and its characteristics and descriptors from `table`.
    private mutating func adopt(_ service: Service, from table: GATTTable) {
        services.append(service)
        for path in service.characteristics {
            guard let characteristic = table.characteristics[path] else { continue }
            characteristics[path] = characteristic
            if let descriptor = characteristic.descriptorPath {
                descriptors[descriptor] = path
                descriptorHandles[descriptor] = table.descriptorHandles[descriptor]
            }
        }
    }

    /// The service's object paths, parents first.
    func paths(of service: Service) -> [ObjectPath] {
        var paths = [service.path]
        for path in service.characteristics {
            paths.append(path)
            if let descriptor = characteristics[path]?.descriptorPath { paths.append(descriptor) }
        }
        return paths
    }

    /// The first characteristic with `uuid` (upper case).
    func path(of uuid: String) -> ObjectPath? {
        for service in services {
            for path in service.characteristics where characteristics[path]?.uuid == uuid { return path }
        }
        return nil
    }

    /// Every path, parents first (the order to export in).
    var pathsInOrder: [ObjectPath] { services.flatMap { paths(of: $0) } }

    private static func hex(_ value: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
