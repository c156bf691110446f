import DBus
import Testing

extension LiveBusTests {
    /// Leak checks. The counts cover the whole test process, where other suites run at the same
    /// time and their sockets, pipes and threads come and go: so the check waits (up to 10 s) for
    /// the counts to come back within a small slack of where they were. A leak per call (1000
    /// calls) or per connection (25 connections) never comes back.
    @Suite struct ResourceTests {
        static let slack = 6

        /// The counts once they are within the slack of `before`, or the last ones read after 10 s.
        static func settled(from before: ProcessResources) async -> ProcessResources {
            var after = ProcessResources.current()
            for _ in 0..<200 {
                if after.openFileDescriptors - before.openFileDescriptors <= slack, after.threads - before.threads <= slack {
                    break
                }
                try? await Task.sleep(for: .milliseconds(50))
                after = ProcessResources.current()
            }
            return after
        }

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
                let after = await Self.settled(from: before)
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
                let after = await Self.settled(from: before)
                #expect(after.openFileDescriptors - before.openFileDescriptors <= Self.slack, "\(before) → \(after)")
                #expect(after.threads - before.threads <= Self.slack, "\(before) → \(after)")
            }
        }
    }
}
