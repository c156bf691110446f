import DBus
import DFUSimSupport
import TestSupport
import Testing

extension LiveBusTests {
    /// Standard D-Bus tools talk to objects exported by this layer.
    @Suite(.enabled(if: ToolRun.isInstalled("/usr/bin/busctl") && ToolRun.isInstalled("/usr/bin/gdbus")))
    struct ToolCompatibilityTests {
        func exportCharacteristic(on connection: DBusConnection) throws {
            connection.addObjectManager(at: .root)
            try connection.export(
                [
                    DBusInterface(
                        try InterfaceName("test.GattCharacteristic1"),
                        methods: [
                            DBusMethod(
                                try MemberName("ReadValue"), inputs: [DBusArgument("options", "a{sv}")],
                                outputs: [DBusArgument("value", "ay")]
                            ) { _ in [.byteArray([0x60, 0x01])] }
                        ],
                        properties: [
                            DBusProperty(
                                try MemberName("UUID"), value: .string("8ec90001-f315-4f60-9fb8-838830daea50")),
                            DBusProperty(try MemberName("Flags"), value: .stringArray(["write", "notify"])),
                        ])
                ], at: try ObjectPath("/test/service0/char0"))
        }

        @Test func busctlIntrospectShowsMethodsAndPropertyValues() async throws {
            try await withLiveBus { live in
                try exportCharacteristic(on: live.server)
                let run = try await ToolRun.run(
                    "/usr/bin/busctl",
                    [
                        "--address=\(live.bus.address)", "introspect", live.server.uniqueName.rawValue,
                        "/test/service0/char0",
                    ])
                #expect(run.status == 0, "\(run.output)")
                let lines = run.output.split(separator: "\n").map {
                    $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                }
                #expect(lines.contains("test.GattCharacteristic1 interface - - -"), "\(run.output)")
                #expect(lines.contains(".ReadValue method a{sv} ay -"), "\(run.output)")
                #expect(
                    lines.contains(".UUID property s \"8ec90001-f315-4f60-9fb8-838830daea50\" emits-change"),
                    "\(run.output)")
                #expect(lines.contains(".Flags property as 2 \"write\" \"notify\" emits-change"), "\(run.output)")
            }
        }

        @Test func gdbusCallsAMethodAndReadsManagedObjects() async throws {
            try await withLiveBus { live in
                try exportCharacteristic(on: live.server)
                let read = try await ToolRun.run(
                    "/usr/bin/gdbus",
                    [
                        "call", "--address", live.bus.address, "--dest", live.server.uniqueName.rawValue,
                        "--object-path", "/test/service0/char0", "--method", "test.GattCharacteristic1.ReadValue", "{}",
                    ])
                #expect(read.status == 0, "\(read.output)")
                #expect(read.output.contains("[byte 0x60, 0x01]"), "\(read.output)")
                let managed = try await ToolRun.run(
                    "/usr/bin/gdbus",
                    [
                        "call", "--address", live.bus.address, "--dest", live.server.uniqueName.rawValue,
                        "--object-path", "/", "--method", "org.freedesktop.DBus.ObjectManager.GetManagedObjects",
                    ])
                #expect(managed.status == 0, "\(managed.output)")
                #expect(managed.output.contains("objectpath '/test/service0/char0'"), "\(managed.output)")
                #expect(managed.output.contains("'Flags': <['write', 'notify']>"), "\(managed.output)")
            }
        }
    }
}

extension LiveBusTests {
    /// BlueZ's own client library (used by bluetoothctl) reads objects exported by this layer.
    @Suite(.enabled(if: ToolRun.isInstalled("/usr/bin/bluetoothctl")))
    struct BluetoothctlCompatibilityTests {
        @Test func bluetoothctlListsAnAdapterServedOverThisLayer() async throws {
            try await withDaemon(ownableNames: [try BusName("org.bluez")]) { daemon in
                let service = try DBusConnection(address: daemon.address)
                defer { service.close() }
                try await service.requestName(try BusName("org.bluez"))
                service.addObjectManager(at: .root)
                try service.export(
                    [
                        DBusInterface(
                            try InterfaceName("org.bluez.Adapter1"),
                            properties: [
                                DBusProperty(try MemberName("Address"), value: .string("00:11:22:33:44:55")),
                                DBusProperty(try MemberName("AddressType"), value: .string("public")),
                                DBusProperty(try MemberName("Name"), value: .string("dfu-test")),
                                DBusProperty(try MemberName("Alias"), value: .string("dfu-test")),
                                DBusProperty(try MemberName("Powered"), value: .boolean(true)),
                                DBusProperty(try MemberName("Discovering"), value: .boolean(false)),
                                DBusProperty(try MemberName("UUIDs"), value: .stringArray([])),
                            ])
                    ], at: try ObjectPath("/org/bluez/hci0"))
                let run = try await ToolRun.run(
                    "/usr/bin/env", ["DBUS_SYSTEM_BUS_ADDRESS=\(daemon.address)", "/usr/bin/bluetoothctl", "list"],
                    timeout: .seconds(10))
                #expect(run.output.contains("Controller 00:11:22:33:44:55 dfu-test [default]"), "\(run.output)")
            }
        }
    }
}
