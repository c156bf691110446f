import DBus
@testable import DFUSimStandIn
import DFUSimulator
import Testing

/// How bluetoothd lays a re-discovery over its cached GATT database (BlueZ 5.66
/// `src/shared/gatt-client.c` `discovery_parse_services`/`discovery_found_service`/
/// `discovery_op_complete`, `src/shared/gatt-db.c` `gatt_db_insert_service`).
struct GATTTableTests {
    static let device = try! ObjectPath("/org/bluez/hci0/dev_C0_FF_EE_00_00_10")
    static let fe59 = "0000FE59-0000-1000-8000-00805F9B34FB"
    static let heartRate = "0000180D-0000-1000-8000-00805F9B34FB"

    /// FE59 with one characteristic: declaration + value (+ CCCD when it notifies or indicates).
    static func dfuService(_ uuid: String, _ properties: SimulatedCharacteristic.Properties) -> SimulatedService {
        SimulatedService(uuid: fe59, characteristics: [SimulatedCharacteristic(uuid: uuid, properties: properties)])
    }

    @Test func aCachedServiceIsKeptOnlyWhenItsHandlesAndUUIDMatch() throws {
        // Cached: FE59 at 0x000E–0x0011 with 8EC90004 (write, indicate: 0x000F decl, 0x0010 value, 0x0011 CCCD).
        let cached = try GATTTable(
            services: [Self.dfuService("8EC90004-F315-4F60-9FB8-838830DAEA50", [.write, .indicate])],
            device: Self.device)
        // Found: FE59 at 0x000E–0x0011 again (same start, end and UUID) but another characteristic:
        // bluetoothd keeps the cached one, the stale-cache trap.
        let same = try GATTTable(
            services: [Self.dfuService("8EC90001-F315-4F60-9FB8-838830DAEA50", [.write, .notify])], device: Self.device)
        let (kept, removed, added) = cached.reconciled(with: same, keepingMatches: true)
        #expect(removed.isEmpty && added.isEmpty)
        #expect(
            Set(kept.characteristics.values.map(\.uuid)) == [
                "00002A05-0000-1000-8000-00805F9B34FB", "8EC90004-F315-4F60-9FB8-838830DAEA50",
            ])
        // Found: Heart Rate first, FE59 later: the cached FE59 at 0x000E no longer matches.
        let other = try GATTTable(
            services: [
                SimulatedService.other(Self.heartRate),
                Self.dfuService("8EC90003-F315-4F60-9FB8-838830DAEA50", [.write, .indicate]),
            ], device: Self.device)
        let (replaced, gone, new) = cached.reconciled(with: other, keepingMatches: true)
        #expect(
            Set(replaced.characteristics.values.map(\.uuid)) == [
                "00002A05-0000-1000-8000-00805F9B34FB", "0000180E-0000-1000-8000-00805F9B34FB",
                "8EC90003-F315-4F60-9FB8-838830DAEA50",
            ])
        // The Generic Attribute service (0x000A–0x000D) matched and stays; FE59 at 0x000E went.
        #expect(
            gone.map(\.rawValue) == [
                Self.device.rawValue + "/service000e/char000f/desc0011", Self.device.rawValue + "/service000e/char000f",
                Self.device.rawValue + "/service000e",
            ])
        #expect(new.first?.rawValue == Self.device.rawValue + "/service000e")
        #expect(!new.contains { $0.rawValue.hasSuffix("/service000a") })
    }

    @Test func serviceChangedRediscoversEveryService() throws {
        let cached = try GATTTable(
            services: [Self.dfuService("8EC90004-F315-4F60-9FB8-838830DAEA50", [.write, .indicate])],
            device: Self.device)
        let fresh = try GATTTable(
            services: [Self.dfuService("8EC90001-F315-4F60-9FB8-838830DAEA50", [.write, .notify])], device: Self.device)
        let (table, removed, added) = cached.reconciled(with: fresh, keepingMatches: false)
        #expect(
            Set(table.characteristics.values.map(\.uuid)) == [
                "00002A05-0000-1000-8000-00805F9B34FB", "8EC90001-F315-4F60-9FB8-838830DAEA50",
            ])
        #expect(removed.count == cached.pathsInOrder.count && added == fresh.pathsInOrder)
    }

    @Test func everyPrimaryServiceIsInUUIDsGenericAccessIncluded() throws {
        let table = try GATTTable(services: [SimulatedService.other(Self.heartRate)], device: Self.device)
        #expect(
            table.serviceUUIDs == [
                "00001800-0000-1000-8000-00805f9b34fb", "00001801-0000-1000-8000-00805f9b34fb",
                "0000180d-0000-1000-8000-00805f9b34fb",
            ])
    }
}
