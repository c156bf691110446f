import DBus
import Glibc
import Testing

extension LiveBusTests {
    @Suite struct DBusDaemonTests {
        @Test func systemLikePolicyLetsOnlyTheListedNamesBeOwned() async throws {
            let daemon = try DBusDaemon(ownableNames: [try BusName("org.example.Service")])
            defer { daemon.stop() }
            let connection = try DBusConnection(address: daemon.address)
            defer { connection.close() }
            try await connection.requestName(try BusName("org.example.Service"))
            await expectDBusError(.accessDenied) {
                try await connection.requestName(try BusName("org.example.Other"))
            }
        }

        @Test func extraPolicyRulesApply() async throws {
            let daemon = try DBusDaemon(
                ownableNames: [try BusName("org.example.Service")],
                extraPolicy: ["<deny send_interface=\"org.example.Locked\"/>"])
            defer { daemon.stop() }
            let server = try DBusConnection(address: daemon.address)
            defer { server.close() }
            let client = try DBusConnection(address: daemon.address)
            defer { client.close() }
            try server.export(
                [
                    DBusInterface(
                        try InterfaceName("org.example.Locked"),
                        methods: [DBusMethod(try MemberName("Open")) { _ in [] }])
                ],
                at: try ObjectPath("/door"))
            await expectDBusError(.accessDenied) {
                _ = try await client.call(
                    destination: server.uniqueName, path: try ObjectPath("/door"),
                    interface: try InterfaceName("org.example.Locked"), member: try MemberName("Open"))
            }
        }

        @Test func stopEndsTheDaemonWithSIGTERMAndRemovesItsDirectory() async throws {
            let daemon = try DBusDaemon(ownableNames: [])
            let connection = try DBusConnection(address: daemon.address)
            defer { connection.close() }
            #expect(daemon.isRunning)
            #expect(access(daemon.directory + "/bus", F_OK) == 0)
            let started = ContinuousClock.now
            daemon.stop(grace: .seconds(3))
            // SIGTERM is enough: well within the grace period before SIGKILL.
            #expect(ContinuousClock.now - started < .seconds(2))
            #expect(!daemon.isRunning)
            #expect(access(daemon.directory, F_OK) != 0)
            // The client notices the bus going away.
            let stream = try? await connection.signals(matching: DBusMatchRule())
            if let stream {
                var iterator = stream.makeAsyncIterator()
                #expect(await iterator.next() == nil)
            }
            await expectDBusError(.disconnected) {
                _ = try await connection.nameOwner(of: connection.uniqueName)
            }
        }
    }
}
