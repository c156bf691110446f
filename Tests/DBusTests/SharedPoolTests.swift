import DBus
import TestSupport
import Testing

extension LiveBusTests {
    /// A connection's handlers run on its event loop: a server in a process whose shared pool is busy (a test run,
    /// a loaded rig host) still answers at once. Seen failing before: under AddressSanitizer on two cores, the
    /// stand-in's answer to `Adapter1.SetDiscoveryFilter` waited behind the test run's queued tasks longer than the
    /// caller's 25 s timeout ("No reply to org.bluez.Adapter1.SetDiscoveryFilter in time").
    @Suite struct SharedPoolTests {
        @Test func aHandlerAnswersWhileEveryThreadOfTheSharedPoolIsBusy() async throws {
            try await withLiveBus { live in
                try live.server.export(
                    [
                        DBusInterface(
                            try InterfaceName("test.Pool"),
                            methods: [
                                DBusMethod(try MemberName("Ping"), outputs: [DBusArgument("answer", "s")]) { _ in
                                    [.string("pong")]
                                }
                            ])
                    ], at: try ObjectPath("/pool"))
                let answer = try await whileTheSharedPoolIsOccupied(on: live.client.loop) {
                    try await live.client.call(
                        destination: live.server.uniqueName, path: try ObjectPath("/pool"),
                        interface: try InterfaceName("test.Pool"), member: try MemberName("Ping"),
                        timeout: TestTime.scaled(.seconds(2)))
                }
                #expect(answer.first?.stringValue == "pong")
            }
        }
    }
}
