import DBus
import Testing

extension LiveBusTests {
    @Suite struct StandardClientTests {
        @Test func propertyHelpersReadAndWriteThroughTheStandardInterface() async throws {
            let adapter = try InterfaceName("test.Adapter1")
            let path = try ObjectPath("/test/hci0")
            try await withLiveBus { live in
                live.server.addObjectManager(at: .root)
                try live.server.export(
                    [
                        DBusInterface(
                            adapter,
                            properties: [
                                DBusProperty(try MemberName("Address"), value: .string("00:11:22:33:44:55")),
                                DBusProperty(try MemberName("Powered"), value: .boolean(false), access: .readWrite) {
                                    _ in
                                },
                            ])
                    ], at: path)
                let server = live.server.uniqueName
                #expect(
                    try await live.client.property("Powered", of: adapter, at: path, destination: server)
                        == .boolean(false))
                try await live.client.setProperty(
                    "Powered", of: adapter, at: path, to: .boolean(true), destination: server)
                let all = try await live.client.allProperties(of: adapter, at: path, destination: server)
                #expect(all == ["Address": .string("00:11:22:33:44:55"), "Powered": .boolean(true)])
                let objects = try await live.client.managedObjects(destination: server)
                #expect(objects[path]?["test.Adapter1"] == all)
                #expect(objects[path]?["org.freedesktop.DBus.Properties"] == [:])
                await expectDBusError(.unknownProperty) {
                    _ = try await live.client.property("Missing", of: adapter, at: path, destination: server)
                }
            }
        }

        @Test func standardSignalsDecodeIntoTypedValues() async throws {
            let device = try InterfaceName("test.Device1")
            let path = try ObjectPath("/test/hci0/dev_1")
            try await withLiveBus { live in
                live.server.addObjectManager(at: .root)
                let signals = try await live.client.signals(matching: DBusMatchRule(sender: live.server.uniqueName))
                try live.server.export(
                    [DBusInterface(device, properties: [DBusProperty(try MemberName("RSSI"), value: .int16(-70))])],
                    at: path)
                try live.server.setProperty(try MemberName("RSSI"), to: .int16(-40), interface: device, at: path)
                try live.server.unexport(at: path)

                let added = try #require(await nextElement(of: signals))
                #expect(DBusInterfacesAdded(added)?.object == path)
                #expect(DBusInterfacesAdded(added)?.interfaces == ["test.Device1": ["RSSI": .int16(-70)]])
                #expect(DBusPropertiesChanged(added) == nil)
                let changed = try #require(await nextElement(of: signals))
                #expect(DBusPropertiesChanged(changed)?.changed == ["RSSI": .int16(-40)])
                #expect(DBusPropertiesChanged(changed)?.interface == "test.Device1")
                #expect(DBusPropertiesChanged(changed)?.invalidated == [])
                let removed = try #require(await nextElement(of: signals))
                #expect(DBusInterfacesRemoved(removed)?.interfaces == ["test.Device1"])
                #expect(DBusInterfacesAdded(removed) == nil)
            }
        }
    }
}

@Suite struct StandardSignalDecodingTests {
    @Test func malformedStandardSignalsDecodeToNil() throws {
        let path = try ObjectPath("/x")
        let properties = try InterfaceName("org.freedesktop.DBus.Properties")
        var message = DBusMessage(
            type: .signal, path: path, interface: properties, member: try MemberName("PropertiesChanged"),
            arguments: [.string("i.F"), .stringVariantDictionary(["A": .uint32(1)]), .stringArray([])])
        #expect(DBusPropertiesChanged(message)?.changed == ["A": .uint32(1)])
        message.arguments = [.string("i.F"), .stringVariantDictionary([:])]  // missing invalidated list
        #expect(DBusPropertiesChanged(message) == nil)
        message.arguments = [.string("i.F"), .stringArray([]), .stringArray([])]  // wrong type for changes
        #expect(DBusPropertiesChanged(message) == nil)
        message.arguments = [.string("i.F"), .stringVariantDictionary([:]), .stringArray([])]
        message.type = .methodCall
        #expect(DBusPropertiesChanged(message) == nil)
    }
}
