import DBus
import DFUSimulator

/// The GATT objects bluetoothd exports for one connected device: paths named after attribute
/// handles (`service000a/char000b/desc000d`), as in bluetoothd.
struct GATTTable: Sendable {
    /// One exported characteristic and its client state.
    struct Characteristic: Sendable {
        let path: ObjectPath
        let servicePath: ObjectPath
        /// Upper-case UUID, as the simulator names it.
        let uuid: String
        let properties: SimulatedCharacteristic.Properties
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
    /// The service UUIDs, lower case, for Device1.UUIDs.
    private(set) var serviceUUIDs: [String] = []

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
                    properties: characteristic.properties,
                    descriptorPath: descriptor, handle: valueHandle)
                characteristicPaths.append(path)
            }
            services.append(
                Service(
                    path: servicePath, uuid: service.uuid, characteristics: characteristicPaths, handle: serviceHandle))
            serviceUUIDs.append(service.uuid.lowercased())
        }
    }

    /// The first characteristic with `uuid` (upper case).
    func path(of uuid: String) -> ObjectPath? {
        for service in services {
            for path in service.characteristics where characteristics[path]?.uuid == uuid { return path }
        }
        return nil
    }

    /// Every path, parents first (the order to export in).
    var pathsInOrder: [ObjectPath] {
        var paths: [ObjectPath] = []
        for service in services {
            paths.append(service.path)
            for path in service.characteristics {
                paths.append(path)
                if let descriptor = characteristics[path]?.descriptorPath { paths.append(descriptor) }
            }
        }
        return paths
    }

    private static func hex(_ value: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
