import DBus
import Testing

@testable import BlueZ
@testable import BlueZTransport

/// The GATT objects bluetoothd exported, as the transport keeps them: decoded from ObjectManager's signals, and laid
/// over the `GetManagedObjects` reply the transport opened with in the order they came.
@Suite struct AnnouncedGATTObjectsTests {
    static let adapter = BlueZPath("/org/bluez/hci0")!
    static let device = "/org/bluez/hci0/dev_C0_FF_EE_00_13_00"
    /// The Secure DFU service (FE59) with its control point (8EC90001) and packet (8EC90002) characteristics.
    static let service = device + "/service000e"
    static let controlPoint = service + "/char000f"
    static let packet = service + "/char0012"

    static func serviceProperties() -> [String: DBusValue] {
        ["UUID": .string("0000fe59-0000-1000-8000-00805f9b34fb"), "Device": .objectPath(try! ObjectPath(device)), "Primary": .boolean(true)]
    }

    static func characteristicProperties(_ uuid: String) -> [String: DBusValue] {
        ["UUID": .string(uuid), "Service": .objectPath(try! ObjectPath(service)), "Flags": .stringArray(["write"]), "MTU": .uint16(247)]
    }

    static func added(_ path: String, _ interface: String, _ properties: [String: DBusValue]) throws -> DBusMessage {
        try BlueZEventTests.added(path, [interface: properties])
    }

    static func removed(_ path: String, _ interface: String) throws -> DBusMessage {
        try BlueZEventTests.signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved",
                                   [.objectPath(try ObjectPath(path)), .stringArray([interface])])
    }

    @Test func servicesAndCharacteristicsExportedOrRemovedBecomeTheirChanges() throws {
        let service = try #require(BlueZGattObjectChange.decode(try Self.added(Self.service, "org.bluez.GattService1", Self.serviceProperties())))
        guard case .serviceAdded(let decoded) = service else {
            Issue.record("expected serviceAdded, got \(service)")
            return
        }
        #expect(decoded.device == BlueZPath(Self.device))
        let characteristic = try #require(BlueZGattObjectChange.decode(
            try Self.added(Self.packet, "org.bluez.GattCharacteristic1", Self.characteristicProperties("8ec90002-f315-4f60-9fb8-838830daea50"))))
        guard case .characteristicAdded(let packet) = characteristic else {
            Issue.record("expected characteristicAdded, got \(characteristic)")
            return
        }
        #expect(packet.mtu == 247)
        #expect(BlueZGattObjectChange.decode(try Self.removed(Self.service, "org.bluez.GattService1")) == .removed(BlueZPath(Self.service)!))
        // A device's own signals are not a GATT object's.
        #expect(BlueZGattObjectChange.decode(try Self.removed(Self.device, "org.bluez.Device1")) == nil)
        #expect(BlueZGattObjectChange.decode(try Self.added(Self.device, "org.bluez.Device1", ["Address": .string("C0:FF:EE:00:13:00")])) == nil)
    }

    @Test func announcementsReadBeforeTheOpeningTreeAreLaidOverItInOrder() throws {
        let objects = AnnouncedGATTObjects()
        // Read while GetManagedObjects was under way, after bluetoothd answered it: the packet characteristic removed
        // (the reply still has it), the control point exported (the reply lacks it).
        for message in [
            try Self.removed(Self.packet, "org.bluez.GattCharacteristic1"),
            try Self.added(Self.controlPoint, "org.bluez.GattCharacteristic1", Self.characteristicProperties("8ec90001-f315-4f60-9fb8-838830daea50")),
        ] {
            objects.announce(try #require(BlueZGattObjectChange.decode(message)))
        }
        #expect(objects.objects.services(of: BlueZPath(Self.device)!).isEmpty)
        let tree = BlueZObjectTree([
            try ObjectPath(Self.service): ["org.bluez.GattService1": Self.serviceProperties()],
            try ObjectPath(Self.packet): ["org.bluez.GattCharacteristic1": Self.characteristicProperties("8ec90002-f315-4f60-9fb8-838830daea50")],
        ])
        objects.seed(tree, adapter: Self.adapter)
        let services = objects.objects.services(of: BlueZPath(Self.device)!)
        #expect(services.map(\.path) == [BlueZPath(Self.service)!])
        #expect(objects.objects.characteristics(of: BlueZPath(Self.service)!).map(\.path) == [BlueZPath(Self.controlPoint)!])
        // After the tree, an announcement applies at once; a removed service takes its characteristics.
        objects.announce(.removed(BlueZPath(Self.service)!))
        #expect(objects.objects.anyCharacteristic(of: BlueZPath(Self.device)!) == nil)
    }

    @Test func anotherAdaptersObjectsAreNotKept() throws {
        let objects = AnnouncedGATTObjects()
        objects.seed(BlueZObjectTree([:]), adapter: Self.adapter)
        let elsewhere = Self.service.replacing("hci0", with: "hci1")
        var properties = Self.serviceProperties()
        properties["Device"] = .objectPath(try ObjectPath(Self.device.replacing("hci0", with: "hci1")))
        objects.announce(try #require(BlueZGattObjectChange.decode(try Self.added(elsewhere, "org.bluez.GattService1", properties))))
        #expect(objects.objects.services(of: BlueZPath(Self.device.replacing("hci0", with: "hci1"))!).isEmpty)
    }
}
