import DBus
import Testing

extension LiveBusTests {
    @Suite struct ObjectManagerTests {
        @Test func getManagedObjectsListsEveryObjectBelowTheManager() async throws {
            let adapter = try InterfaceName("test.Adapter")
            try await withLiveBus { live in
                live.server.addObjectManager(at: .root)
                try live.server.export(
                    [
                        DBusInterface(
                            adapter, properties: [DBusProperty(try MemberName("Powered"), value: .boolean(true))])
                    ],
                    at: try ObjectPath("/test/hci0"))
                let reply = try await live.client.call(
                    destination: live.server.uniqueName, path: .root,
                    interface: try InterfaceName("org.freedesktop.DBus.ObjectManager"),
                    member: try MemberName("GetManagedObjects"))
                #expect(reply.first?.signature == "a{oa{sa{sv}}}")
                let objects = try #require(reply.first?.stringKeyedDictionary)
                #expect(Array(objects.keys) == ["/test/hci0"])
                let interfaces = try #require(objects["/test/hci0"]?.stringKeyedDictionary)
                #expect(interfaces["test.Adapter"] == .stringVariantDictionary(["Powered": .boolean(true)]))
                #expect(interfaces["org.freedesktop.DBus.Properties"] == .stringVariantDictionary([:]))
                #expect(interfaces["org.freedesktop.DBus.Introspectable"] == .stringVariantDictionary([:]))
            }
        }

        /// `export(_:at:announced: false)`: the object is listed by GetManagedObjects at once, and InterfacesAdded goes
        /// out only when announced, with the properties as they are then.
        @Test func anObjectExportedUnannouncedIsListedAndAnnouncedLaterWithItsPropertiesThen() async throws {
            let device = try InterfaceName("test.Device")
            let rssi = try MemberName("RSSI")
            let path = try ObjectPath("/test/hci0/dev_2")
            try await withLiveBus { live in
                live.server.addObjectManager(at: .root)
                let stream = try await live.client.signals(
                    matching: DBusMatchRule(sender: live.server.uniqueName, interface: try InterfaceName("org.freedesktop.DBus.ObjectManager")))
                try live.server.export(
                    [DBusInterface(device, properties: [DBusProperty(rssi, value: .int16(-60))])], at: path, announced: false)
                let reply = try await live.client.call(
                    destination: live.server.uniqueName, path: .root,
                    interface: try InterfaceName("org.freedesktop.DBus.ObjectManager"), member: try MemberName("GetManagedObjects"))
                #expect(reply.first?.stringKeyedDictionary.map { Array($0.keys) } == ["/test/hci0/dev_2"])
                try live.server.setProperties([rssi: .int16(-45)], interface: device, at: path)
                try live.server.announceInterfaces([device], at: path)
                // The first ObjectManager signal is the announcement: nothing was emitted by the export itself.
                let added = try #require(await nextElement(of: stream))
                #expect(added.member?.rawValue == "InterfacesAdded")
                #expect(added.arguments.first == .objectPath(path))
                #expect(added.arguments.last?.stringKeyedDictionary?["test.Device"] == .stringVariantDictionary(["RSSI": .int16(-45)]))
            }
        }

        /// Announcing what is not exported there sends nothing.
        @Test func announcingAnInterfaceNotExportedSendsNothing() async throws {
            let path = try ObjectPath("/test/hci0/dev_3")
            try await withLiveBus { live in
                live.server.addObjectManager(at: .root)
                let stream = try await live.client.signals(
                    matching: DBusMatchRule(sender: live.server.uniqueName, interface: try InterfaceName("org.freedesktop.DBus.ObjectManager")))
                try live.server.announceInterfaces([try InterfaceName("test.Device")], at: path)
                try live.server.export([DBusInterface(try InterfaceName("test.Other"))], at: path)
                let first = try #require(await nextElement(of: stream))
                #expect(first.arguments.last?.stringKeyedDictionary.map { Array($0.keys) } == ["test.Other"])
            }
        }

        @Test func exportingAndUnexportingEmitInterfacesAddedAndRemoved() async throws {
            let device = try InterfaceName("test.Device")
            let path = try ObjectPath("/test/hci0/dev_1")
            try await withLiveBus { live in
                live.server.addObjectManager(at: .root)
                let stream = try await live.client.signals(
                    matching: DBusMatchRule(
                        sender: live.server.uniqueName,
                        interface: try InterfaceName("org.freedesktop.DBus.ObjectManager")))
                try live.server.export(
                    [DBusInterface(device, properties: [DBusProperty(try MemberName("RSSI"), value: .int16(-60))])],
                    at: path)
                let added = try #require(await nextElement(of: stream))
                #expect(added.member?.rawValue == "InterfacesAdded")
                #expect(added.path == .root)
                #expect(added.signature == "oa{sa{sv}}")
                #expect(added.arguments.first == .objectPath(path))
                #expect(
                    added.arguments.last?.stringKeyedDictionary?["test.Device"]
                        == .stringVariantDictionary(["RSSI": .int16(-60)]))

                try live.server.unexport(at: path)
                let removed = try #require(await nextElement(of: stream))
                #expect(removed.member?.rawValue == "InterfacesRemoved")
                #expect(removed.arguments == [.objectPath(path), .stringArray(["test.Device"])])
                await expectDBusError(.unknownObject) {
                    _ = try await live.client.call(
                        destination: live.server.uniqueName, path: path,
                        interface: try InterfaceName("org.freedesktop.DBus.Properties"),
                        member: try MemberName("GetAll"),
                        arguments: [.string("test.Device")])
                }
            }
        }
    }
}
