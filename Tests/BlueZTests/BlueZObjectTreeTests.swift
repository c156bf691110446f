@testable import BlueZ
import DBus
import Testing

@Suite struct BlueZObjectTreeTests {
    /// A GetManagedObjects reply as bluetoothd 5.66 shapes it: an adapter, a connected device with the
    /// Secure DFU service and its two characteristics, and a second adapter that is off.
    static func fixture() throws -> [ObjectPath: [String: [String: DBusValue]]] {
        [
            try ObjectPath("/org/bluez"): ["org.bluez.AgentManager1": [:]],
            try ObjectPath("/org/bluez/hci0"): [
                "org.bluez.Adapter1": [
                    "Address": .string("00:AA:01:00:00:00"),  // the controller's public address
                    "Powered": .boolean(true),
                    "Discovering": .boolean(false),
                ]
            ],
            try ObjectPath("/org/bluez/hci1"): ["org.bluez.Adapter1": ["Powered": .boolean(false)]],
            try ObjectPath("/org/bluez/hci0/dev_C0_FF_EE_00_13_00"): [
                "org.bluez.Device1": [
                    "Address": .string("c0:ff:ee:00:13:00"),  // lower case: decoded upper case
                    "AddressType": .string("random"),
                    "Name": .string("DfuTarg"),
                    "Alias": .string("DfuTarg"),
                    "RSSI": .int16(-57),  // n, dBm
                    "UUIDs": .stringArray(["0000fe59-0000-1000-8000-00805f9b34fb"]),
                    "Adapter": .objectPath(try ObjectPath("/org/bluez/hci0")),
                    "Connected": .boolean(true),
                    "ServicesResolved": .boolean(true),
                    "Paired": .boolean(false),
                ]
            ],
            try ObjectPath("/org/bluez/hci0/dev_C0_FF_EE_00_13_00/service000a"): [
                "org.bluez.GattService1": [
                    "UUID": .string("0000fe59-0000-1000-8000-00805f9b34fb"),
                    "Device": .objectPath(try ObjectPath("/org/bluez/hci0/dev_C0_FF_EE_00_13_00")),
                    "Primary": .boolean(true),
                ]
            ],
            try ObjectPath("/org/bluez/hci0/dev_C0_FF_EE_00_13_00/service000a/char000b"): [
                "org.bluez.GattCharacteristic1": [
                    "UUID": .string("8ec90001-f315-4f60-9fb8-838830daea50"),  // control point
                    "Service": .objectPath(try ObjectPath("/org/bluez/hci0/dev_C0_FF_EE_00_13_00/service000a")),
                    "Flags": .stringArray(["write", "notify"]),
                    "MTU": .uint16(517),  // q
                ]
            ],
            try ObjectPath("/org/bluez/hci0/dev_C0_FF_EE_00_13_00/service000a/char000e"): [
                "org.bluez.GattCharacteristic1": [
                    "UUID": .string("8ec90002-f315-4f60-9fb8-838830daea50"),  // packet
                    "Service": .objectPath(try ObjectPath("/org/bluez/hci0/dev_C0_FF_EE_00_13_00/service000a")),
                    "Flags": .stringArray(["write-without-response", "notify"]),
                ]
            ],
        ]
    }

    @Test func decodesAdaptersSortedWithTheirState() throws {
        let tree = BlueZObjectTree(try Self.fixture())
        #expect(tree.adapters.map(\.name) == ["hci0", "hci1"])
        #expect(tree.adapters.map(\.isPowered) == [true, false])
        #expect(tree.adapters.first?.address == "00:AA:01:00:00:00")
    }

    @Test func decodesDevicesWithCanonicalAddressAndUUIDs() throws {
        let tree = BlueZObjectTree(try Self.fixture())
        let device = try #require(tree.devices.first)
        #expect(device.address == "C0:FF:EE:00:13:00")
        #expect(device.name == "DfuTarg")
        #expect(device.rssi == -57)
        #expect(device.serviceUUIDs == ["0000FE59-0000-1000-8000-00805F9B34FB"])
        #expect(device.isConnected && device.servicesResolved)
        #expect(!device.isPaired && !device.isBonded)
    }

    @Test func groupsServicesAndCharacteristicsByParent() throws {
        let tree = BlueZObjectTree(try Self.fixture())
        let device = try #require(tree.devices.first)
        let services = tree.services(of: device.path)
        #expect(services.map(\.uuid) == ["0000FE59-0000-1000-8000-00805F9B34FB"])
        let characteristics = tree.characteristics(of: try #require(services.first).path)
        #expect(characteristics.map(\.uuid) == ["8EC90001-F315-4F60-9FB8-838830DAEA50", "8EC90002-F315-4F60-9FB8-838830DAEA50"])
        #expect(characteristics.map(\.mtu) == [517, nil])
        #expect(characteristics.map(\.canNotify) == [true, true])
    }

    @Test func objectsWithoutRequiredPropertiesAreSkipped() throws {
        let tree = BlueZObjectTree([
            try ObjectPath("/org/bluez/hci0/dev_X"): ["org.bluez.Device1": ["Name": .string("no address")]],
            try ObjectPath("/org/bluez/hci0/dev_X/service1"): ["org.bluez.GattService1": ["Primary": .boolean(true)]],
        ])
        #expect(tree.devices.isEmpty)
        #expect(tree.services.isEmpty)
    }

    @Test func propertiesChangedUpdatesADevice() throws {
        var device = try #require(BlueZObjectTree(try Self.fixture()).devices.first)
        device.apply(changed: ["Connected": .boolean(false), "ServicesResolved": .boolean(false)], invalidated: ["RSSI"])
        #expect(!device.isConnected && !device.servicesResolved)
        #expect(device.rssi == nil)
    }

    @Test func servicesResolvedMeansConnectedEvenWithoutAConnectedSignal() throws {
        var device = try #require(BlueZObjectTree(try Self.fixture()).devices.first)
        device.apply(changed: ["Connected": .boolean(false), "ServicesResolved": .boolean(false)], invalidated: [])
        // bluetoothd 5.66 in the VM suite: ServicesResolved = true with no Connected = true before it.
        device.apply(changed: ["ServicesResolved": .boolean(true)], invalidated: [])
        #expect(device.isConnected && device.servicesResolved)
        device.apply(changed: ["ServicesResolved": .boolean(false)], invalidated: [])
        #expect(device.isConnected && !device.servicesResolved, "losing the services alone is not a disconnection")
        device.apply(changed: ["Connected": .boolean(false)], invalidated: [])
        #expect(!device.isConnected)
    }

    @Test(arguments: [
        ("fe59", "0000FE59-0000-1000-8000-00805F9B34FB"),
        ("0000FE59", "0000FE59-0000-1000-8000-00805F9B34FB"),
        ("8ec90001-f315-4f60-9fb8-838830daea50", "8EC90001-F315-4F60-9FB8-838830DAEA50"),
    ])
    func uuidsAreCanonicalised(text: String, canonical: String) {
        #expect(BlueZUUID.canonical(text) == canonical)
    }
}
