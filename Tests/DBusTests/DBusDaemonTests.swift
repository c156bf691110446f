import DBus
import DFUSimSupport
import Glibc
import Testing

extension LiveBusTests {
    @Suite struct DBusDaemonTests {
        @Test func systemLikePolicyLetsOnlyTheListedNamesBeOwned() async throws {
            try await withDaemon(ownableNames: [try BusName("org.example.Service")]) { daemon in
                let connection = try DBusConnection(address: daemon.address)
                defer { connection.close() }
                try await connection.requestName(try BusName("org.example.Service"))
                await expectDBusError(.accessDenied) {
                    try await connection.requestName(try BusName("org.example.Other"))
                }
            }
        }

        /// A daemon outlives a parent that crashes: it must not hold the parent's standard error, or whoever
        /// reads that to its end (swift test, a CI log) waits for ever.
        @Test func theDaemonsStandardErrorIsALogInItsOwnDirectoryNotTheParents() async throws {
            let daemon = try await DBusDaemon.start(ownableNames: [])
            var target = [CChar](repeating: 0, count: 4096)
            let count = readlink("/proc/\(daemon.processIdentifier)/fd/2", &target, target.count - 1)
            let path = count > 0 ? String(decoding: target.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
            await daemon.shutDown()
            #expect(path == daemon.directory + "/daemon.log")
            #expect(access(daemon.directory, F_OK) != 0, "the log goes with the directory")
        }

        @Test func aDaemonThatCannotStartSaysWhyInOneLine() async {
            // Not a bus configuration: dbus-daemon writes its reason to standard error and exits.
            await #expect {
                _ = try await DBusDaemon.start { _ in "this is not XML" }
            } throws: { error in
                let message = "\(error)"
                return message.contains("dbus-daemon did not start (no address printed): ") && !message.contains("\n")
            }
        }

        @Test func extraPolicyRulesApply() async throws {
            try await withDaemon(
                ownableNames: [try BusName("org.example.Service")],
                extraPolicy: ["<deny send_interface=\"org.example.Locked\"/>"]
            ) { daemon in
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
        }

        @Test func stopEndsTheDaemonWithSIGTERMAndRemovesItsDirectory() async throws {
            let daemon = try await DBusDaemon.start(ownableNames: [])
            let connection = try DBusConnection(address: daemon.address)
            defer { connection.close() }
            #expect(daemon.isRunning)
            #expect(access(daemon.directory + "/bus", F_OK) == 0)
            let started = ContinuousClock.now
            await daemon.shutDown(grace: .seconds(3))
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
