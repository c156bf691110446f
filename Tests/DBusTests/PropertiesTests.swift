import DBus
import Synchronization
import Testing

/// The values a property's set handler accepted.
final class WriteLog: Sendable {
    let values = Mutex<[UInt32]>([])
}

extension LiveBusTests {
    @Suite struct PropertiesTests {
        let path = TestNames.path("/test/props")

        func exportDevice(on connection: DBusConnection, writes: WriteLog) throws -> InterfaceName {
            let interface = try InterfaceName("test.Device")
            try connection.export(
                [
                    DBusInterface(
                        interface,
                        properties: [
                            DBusProperty(try MemberName("Name"), value: .string("first")),
                            DBusProperty(try MemberName("Level"), value: .uint32(1), access: .readWrite) { value in
                                guard let level = value.integerValue, level <= 100 else {
                                    throw DBusError(
                                        name: "org.freedesktop.DBus.Error.InvalidArgs", message: "Level above 100")
                                }
                                writes.values.withLock { $0.append(UInt32(level)) }
                            },
                            DBusProperty(try MemberName("Quiet"), value: .stringArray([]), emitsChangedSignal: false),
                        ])
                ], at: path)
            return interface
        }

        @Test func getGetAllAndSetWorkWithTheStandardInterface() async throws {
            let properties = try InterfaceName("org.freedesktop.DBus.Properties")
            try await withLiveBus { live in
                let writes = WriteLog()
                let interface = try exportDevice(on: live.server, writes: writes)
                let destination = live.server.uniqueName
                func call(_ member: String, _ arguments: [DBusValue]) async throws -> [DBusValue] {
                    try await live.client.call(
                        destination: destination, path: path, interface: properties, member: try MemberName(member),
                        arguments: arguments)
                }
                #expect(
                    try await call("Get", [.string("test.Device"), .string("Name")]) == [.variant(.string("first"))])
                let all = try #require(try await call("GetAll", [.string("test.Device")]).first?.stringKeyedDictionary)
                #expect(all["Name"] == .variant(.string("first")))
                #expect(all["Level"] == .variant(.uint32(1)))
                #expect(all["Quiet"] == .variant(.stringArray([])))
                #expect(all.count == 3)

                _ = try await call("Set", [.string("test.Device"), .string("Level"), .variant(.uint32(42))])
                #expect(writes.values.withLock { $0 } == [42])
                #expect(
                    live.server.exportedProperty(try MemberName("Level"), interface: interface, at: path) == .uint32(42)
                )

                let refused = await expectDBusError(.invalidArguments) {
                    _ = try await call("Set", [.string("test.Device"), .string("Level"), .variant(.uint32(500))])
                }
                #expect(refused?.message == "Level above 100")
                await expectDBusError(.invalidArguments) {
                    _ = try await call("Set", [.string("test.Device"), .string("Level"), .variant(.string("high"))])
                }
                await expectDBusError(.propertyReadOnly) {
                    _ = try await call("Set", [.string("test.Device"), .string("Name"), .variant(.string("x"))])
                }
                await expectDBusError(.unknownProperty) {
                    _ = try await call("Get", [.string("test.Device"), .string("Missing")])
                }
                await expectDBusError(.unknownInterface) {
                    _ = try await call("GetAll", [.string("test.Missing")])
                }
                #expect(
                    live.server.exportedProperty(try MemberName("Level"), interface: interface, at: path) == .uint32(42)
                )
            }
        }

        @Test func changesAreAnnouncedWithPropertiesChanged() async throws {
            try await withLiveBus { live in
                let interface = try exportDevice(on: live.server, writes: WriteLog())
                let stream = try await live.client.signals(
                    matching: DBusMatchRule(
                        path: path, interface: try InterfaceName("org.freedesktop.DBus.Properties"),
                        member: try MemberName("PropertiesChanged")))
                // A remote Set…
                _ = try await live.client.call(
                    destination: live.server.uniqueName, path: path,
                    interface: try InterfaceName("org.freedesktop.DBus.Properties"), member: try MemberName("Set"),
                    arguments: [.string("test.Device"), .string("Level"), .variant(.uint32(7))])
                let remote = try #require(await nextElement(of: stream))
                #expect(
                    remote.arguments == [
                        .string("test.Device"), .stringVariantDictionary(["Level": .uint32(7)]), .stringArray([]),
                    ])
                // …a quiet property changes silently, and a local change is announced.
                try live.server.setProperty(
                    try MemberName("Quiet"), to: .stringArray(["x"]), interface: interface, at: path)
                try live.server.setProperties(
                    [try MemberName("Name"): .string("second"), try MemberName("Level"): .uint32(9)],
                    interface: interface, at: path)
                let local = try #require(await nextElement(of: stream))
                #expect(
                    local.arguments
                        == [
                            .string("test.Device"),
                            .stringVariantDictionary(["Name": .string("second"), "Level": .uint32(9)]),
                            .stringArray([]),
                        ])
                await expectDBusError(.invalidArguments) {
                    try live.server.setProperty(try MemberName("Name"), to: .uint32(1), interface: interface, at: path)
                }
            }
        }

        @Test func absentPropertiesAreLeftOutUntilSetAndInvalidatedWhenRemoved() async throws {
            let properties = try InterfaceName("org.freedesktop.DBus.Properties")
            let device = try InterfaceName("test.Scanned")
            let rssi = try MemberName("RSSI")
            try await withLiveBus { live in
                try live.server.export(
                    [
                        DBusInterface(
                            device,
                            properties: [
                                DBusProperty(try MemberName("Address"), value: .string("AA:BB:CC:DD:EE:FF")),
                                DBusProperty(rssi, signature: "n"),
                            ])
                    ], at: path)
                let stream = try await live.client.signals(
                    matching: DBusMatchRule(
                        path: path, interface: properties, member: try MemberName("PropertiesChanged")))
                func getAll() async throws -> [String: DBusValue] {
                    let reply = try await live.client.call(
                        destination: live.server.uniqueName, path: path, interface: properties,
                        member: try MemberName("GetAll"),
                        arguments: [.string("test.Scanned")])
                    return reply.first?.stringKeyedDictionary ?? [:]
                }
                #expect(try await getAll().keys.sorted() == ["Address"])
                await expectDBusError(.invalidArguments) {
                    _ = try await live.client.call(
                        destination: live.server.uniqueName, path: path, interface: properties,
                        member: try MemberName("Get"),
                        arguments: [.string("test.Scanned"), .string("RSSI")])
                }

                try live.server.setProperty(rssi, to: .int16(-58), interface: device, at: path)
                let appeared = try #require(await nextElement(of: stream))
                #expect(
                    appeared.arguments == [
                        .string("test.Scanned"), .stringVariantDictionary(["RSSI": .int16(-58)]), .stringArray([]),
                    ])
                #expect(try await getAll()["RSSI"] == .variant(.int16(-58)))

                try live.server.removeProperties([rssi], interface: device, at: path)
                let removed = try #require(await nextElement(of: stream))
                #expect(
                    removed.arguments == [
                        .string("test.Scanned"), .stringVariantDictionary([:]), .stringArray(["RSSI"]),
                    ])
                #expect(try await getAll().keys.sorted() == ["Address"])
            }
        }
    }
}
