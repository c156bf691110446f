import DBus
import Testing

@testable import BlueZ

/// bluetoothd's signals below /org/bluez, as the BlueZ layer hands them on: each fixture is the
/// signal (ObjectManager or Properties) and the events it must become.
@Suite struct BlueZEventTests {
    static let adapter = "/org/bluez/hci0"
    static let device = "/org/bluez/hci0/dev_C0_FF_EE_00_00_10"
    static let controlPoint = "/org/bluez/hci0/dev_C0_FF_EE_00_00_10/service000b/char000e"

    static func signal(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue]) throws -> DBusMessage {
        DBusMessage(type: .signal, path: try ObjectPath(path), interface: try InterfaceName(interface),
                    member: try MemberName(member), arguments: arguments)
    }

    /// `InterfacesAdded(o object, a{sa{sv}} interfaces)` from bluetoothd's ObjectManager at "/".
    static func added(_ object: String, _ interfaces: [String: [String: DBusValue]]) throws -> DBusMessage {
        let map = DBusValue.dictionary(
            keySignature: "s", valueSignature: "a{sv}",
            entries: interfaces.sorted { $0.key < $1.key }.map {
                DBusDictionaryEntry(key: .string($0.key), value: .stringVariantDictionary($0.value))
            })
        return try signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded", [.objectPath(try ObjectPath(object)), map])
    }

    /// `PropertiesChanged(s interface, a{sv} changed, as invalidated)` on the object itself.
    static func changed(_ object: String, _ interface: String, _ values: [String: DBusValue], invalidated: [String] = [])
        throws -> DBusMessage
    {
        try signal(object, "org.freedesktop.DBus.Properties", "PropertiesChanged",
                   [.string(interface), .stringVariantDictionary(values), .stringArray(invalidated)])
    }

    @Test func aDiscoveredDeviceBecomesDeviceAddedWithItsAddressAndName() throws {
        let events = BlueZEvent.decode(try Self.added(Self.device, [
            "org.bluez.Device1": ["Address": .string("c0:ff:ee:00:00:10"), "Name": .string("DfuTarg"), "RSSI": .int16(-48)],
            "org.freedesktop.DBus.Properties": [:],
        ]))
        guard case .deviceAdded(let device)? = events.first, events.count == 1 else {
            Issue.record("expected one deviceAdded, got \(events)")
            return
        }
        #expect(device.address == "C0:FF:EE:00:00:10")
        #expect(device.name == "DfuTarg")
        #expect(device.rssi == -48)
    }

    @Test func anAdapterAppearingIsAdapterAdded() throws {
        let events = BlueZEvent.decode(try Self.added(Self.adapter, ["org.bluez.Adapter1": ["Powered": .boolean(true)]]))
        #expect(events == [.adapterAdded(BlueZPath(try ObjectPath(Self.adapter)))])
    }

    @Test func interfacesRemovedNamesTheDeviceOrTheAdapter() throws {
        let removed = try Self.signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved",
                                      [.objectPath(try ObjectPath(Self.device)), .stringArray(["org.bluez.Device1"])])
        #expect(BlueZEvent.decode(removed) == [.deviceRemoved(BlueZPath(try ObjectPath(Self.device)))])
        let unplugged = try Self.signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved",
                                        [.objectPath(try ObjectPath(Self.adapter)), .stringArray(["org.bluez.Adapter1"])])
        #expect(BlueZEvent.decode(unplugged) == [.adapterRemoved(BlueZPath(try ObjectPath(Self.adapter)))])
    }

    @Test func aNotificationByStartNotifyIsValueChanged() throws {
        // Secure DFU response: 60 = response, 01 = Create, 01 = success.
        let events = BlueZEvent.decode(try Self.changed(Self.controlPoint, "org.bluez.GattCharacteristic1",
                                                        ["Value": .byteArray([0x60, 0x01, 0x01])]))
        #expect(events == [.valueChanged(characteristic: BlueZPath(try ObjectPath(Self.controlPoint)), value: [0x60, 0x01, 0x01])])
    }

    @Test func notifyAcquiredFalseIsTheDescriptorTakenBack() throws {
        let released = BlueZEvent.decode(try Self.changed(Self.controlPoint, "org.bluez.GattCharacteristic1",
                                                          ["NotifyAcquired": .boolean(false)]))
        #expect(released == [.notifyReleased(characteristic: BlueZPath(try ObjectPath(Self.controlPoint)))])
        let acquired = BlueZEvent.decode(try Self.changed(Self.controlPoint, "org.bluez.GattCharacteristic1",
                                                          ["NotifyAcquired": .boolean(true), "Notifying": .boolean(true)]))
        #expect(acquired == [])
        // Both in one signal (bluetoothd sends a characteristic's pending changes together): both events, in order.
        let both = BlueZEvent.decode(try Self.changed(Self.controlPoint, "org.bluez.GattCharacteristic1",
                                                      ["Value": .byteArray([0x60, 0x04, 0x01]), "NotifyAcquired": .boolean(false)]))
        let path = BlueZPath(try ObjectPath(Self.controlPoint))
        #expect(both == [.valueChanged(characteristic: path, value: [0x60, 0x04, 0x01]), .notifyReleased(characteristic: path)])
    }

    @Test func aDeviceChangeSaysConnectedResolvedAndAdvertisedAndAppliesTheRest() throws {
        let events = BlueZEvent.decode(try Self.changed(Self.device, "org.bluez.Device1",
                                                        ["ServicesResolved": .boolean(true), "RSSI": .int16(-60)]))
        guard case .deviceChanged(let change)? = events.first else {
            Issue.record("expected deviceChanged, got \(events)")
            return
        }
        #expect(change.connected == nil)
        #expect(change.servicesResolved == true)
        #expect(change.advertised)
        let before = try #require(BlueZDevice(path: BlueZPath(try ObjectPath(Self.device)), properties: ["Address": .string("C0:FF:EE:00:00:10")]))
        let after = change.applied(to: before)
        // bluetoothd 5.66 may resolve services without ever signalling Connected = true.
        #expect(after.isConnected && after.servicesResolved)
        #expect(after.rssi == -60)
    }

    @Test func anAdapterPoweredOffIsAdapterPoweredFalse() throws {
        let events = BlueZEvent.decode(try Self.changed(Self.adapter, "org.bluez.Adapter1", ["Powered": .boolean(false)]))
        #expect(events == [.adapterPowered(BlueZPath(try ObjectPath(Self.adapter)), false)])
    }

    @Test func malformedOrForeignSignalsBecomeNoEvent() throws {
        // A Value that is not a byte array, another interface's change, a device without an address.
        #expect(BlueZEvent.decode(try Self.changed(Self.controlPoint, "org.bluez.GattCharacteristic1", ["Value": .string("x")])).isEmpty)
        #expect(BlueZEvent.decode(try Self.changed(Self.device, "org.bluez.MediaControl1", ["Connected": .boolean(true)])).isEmpty)
        #expect(BlueZEvent.decode(try Self.added(Self.device, ["org.bluez.Device1": ["Name": .string("no address")]])).isEmpty)
        let wrongSignature = try Self.signal("/", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded", [.string("/x")])
        #expect(BlueZEvent.decode(wrongSignature).isEmpty)
    }
}
