import DBus
import Testing

extension LiveBusTests {
    /// Leak checks. The counts cover the whole test process, where other test targets run at the
    /// same time (their sockets, reader threads and child processes come and go), so a slack is
    /// allowed; a leak per call (1000 calls) or per connection (25 connections) still exceeds it.
    @Suite struct ResourceTests {
        static let slack = 16

        @Test func aThousandCallsDoNotGrowFileDescriptorsOrThreads() async throws {
            try await withLiveBus { live in
                let interface = try InterfaceName("test.Echo")
                let path = try ObjectPath("/echo")
                let member = try MemberName("Echo")
                try live.server.export(
                    [
                        DBusInterface(
                            interface,
                            methods: [
                                DBusMethod(member, inputs: [DBusArgument("v", "v")], outputs: [DBusArgument("v", "v")])
                                { call in
                                    call.arguments
                                }
                            ])
                    ], at: path)
                func echo(_ index: Int) async throws {
                    let value = DBusValue.variant(.stringVariantDictionary(["n": .int32(Int32(index))]))
                    let reply = try await live.client.call(
                        destination: live.server.uniqueName, path: path, interface: interface, member: member,
                        arguments: [value])
                    #expect(reply == [value])
                }
                for index in 0..<50 { try await echo(index) }
                let before = ProcessResources.current()
                for index in 0..<1000 { try await echo(index) }
                let after = ProcessResources.current()
                #expect(after.openFileDescriptors - before.openFileDescriptors <= Self.slack, "\(before) → \(after)")
                #expect(after.threads - before.threads <= Self.slack, "\(before) → \(after)")
            }
        }

        @Test func openingAndClosingConnectionsReleasesSocketsAndThreads() async throws {
            try await withPrivateBus { bus in
                let warmUp = try DBusConnection(address: bus.address)
                warmUp.close()
                let before = ProcessResources.current()
                for _ in 0..<25 {
                    let connection = try DBusConnection(address: bus.address)
                    _ = try await connection.signals(matching: DBusMatchRule(interface: try InterfaceName("test.X")))
                    connection.close()
                    connection.close()
                }
                let after = ProcessResources.current()
                #expect(after.openFileDescriptors - before.openFileDescriptors <= Self.slack, "\(before) → \(after)")
                #expect(after.threads - before.threads <= Self.slack, "\(before) → \(after)")
            }
        }
    }
}
