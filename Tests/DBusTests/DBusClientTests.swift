import DBus
import Testing

/// A client that answers from a table and fails loudly on anything else.
struct CannedClient: DBusClient {
    let replies: [String: [DBusValue]]

    func call(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName, arguments: [DBusValue],
        timeout: Duration
    ) async throws(DBusError) -> [DBusValue] {
        let key = "\(path).\(interface?.rawValue ?? "").\(member)"
        guard let reply = replies[key] else {
            throw DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "unexpected call \(key)")
        }
        return reply
    }

    func send(_ message: DBusMessage) throws(DBusError) {
        throw DBusError(name: "org.freedesktop.DBus.Error.NotSupported", message: "unexpected message \(message.member?.rawValue ?? "")")
    }

    func send(awaitingReply message: DBusMessage, timeout: Duration) throws(DBusError) -> DBusPendingReply {
        throw DBusError(name: "org.freedesktop.DBus.Error.NotSupported", message: "unexpected call \(message.member?.rawValue ?? "")")
    }

    func signals(matching rule: DBusMatchRule, onDelivery: (@Sendable (DBusMessage) -> Void)?)
        async throws(DBusError) -> AsyncStream<DBusMessage>
    {
        throw DBusError(name: "org.freedesktop.DBus.Error.NotSupported", message: "unexpected subscription \(rule)")
    }
}

@Suite struct DBusClientTests {
    /// Code written against the protocol, as a BlueZ layer would be.
    func adapterIsPowered(_ client: some DBusClient) async throws(DBusError) -> Bool {
        let reply = try await client.call(
            destination: try BusName("org.bluez"), path: try ObjectPath("/org/bluez/hci0"),
            interface: try InterfaceName("org.freedesktop.DBus.Properties"), member: try MemberName("Get"),
            arguments: [.string("org.bluez.Adapter1"), .string("Powered")])
        return reply.first?.boolValue ?? false
    }

    @Test func codeWrittenAgainstTheProtocolRunsOnACannedFake() async throws {
        let fake = CannedClient(replies: [
            "/org/bluez/hci0.org.freedesktop.DBus.Properties.Get": [.variant(.boolean(true))]
        ])
        #expect(try await adapterIsPowered(fake))
        let empty = CannedClient(replies: [:])
        await expectDBusError(.unknownMethod) {
            _ = try await adapterIsPowered(empty)
        }
    }
}
