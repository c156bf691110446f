import DBus
import DFUSimStandIn
import Synchronization

/// An org.bluez.Agent1 exported on a test client's connection and registered with the stand-in: it answers
/// RequestPasskey with `passkey`, RequestConfirmation and RequestAuthorization with success, each unless
/// `rejects`, and records every call
/// as "Method arguments…".
final class PairingAgentByHand: Sendable {
    let path: ObjectPath
    private let calls = CallLog()

    /// The calls so far, in order, e.g. `RequestPasskey /org/bluez/hci0/dev_…`.
    var received: [String] { calls.entries.withLock { $0 } }

    /// The calls, shared with the method handlers.
    private final class CallLog: Sendable {
        let entries = Mutex<[String]>([])
    }

    /// Exports the agent on `bus.client` and registers it with `capability`; `asDefault` also makes it the
    /// default agent.
    init(
        _ bus: StandInHarness, capability: String, passkey: UInt32 = 123_456, rejects: Bool = false,
        asDefault: Bool = false, path: String = "/test/agent"
    ) async throws {
        self.path = try ObjectPath(path)
        let calls = self.calls
        @Sendable func record(_ message: DBusMessage) {
            let arguments = message.arguments.map { value -> String in
                if let path = value.objectPathValue { return path.rawValue }
                if let number = value.integerValue { return String(number) }
                return value.stringValue ?? "?"
            }
            calls.entries.withLock { $0.append(([message.member?.rawValue ?? "?"] + arguments).joined(separator: " ")) }
        }
        let rejected = DBusError(name: "org.bluez.Error.Rejected", message: "Rejected by the test")
        let methods = [
            DBusMethod(
                try MemberName("RequestPasskey"), inputs: [DBusArgument("device", "o")],
                outputs: [DBusArgument("passkey", "u")]
            ) { message in
                record(message)
                if rejects { throw rejected }
                return [.uint32(passkey)]
            },
            DBusMethod(
                try MemberName("RequestConfirmation"),
                inputs: [DBusArgument("device", "o"), DBusArgument("passkey", "u")]
            ) { message in
                record(message)
                if rejects { throw rejected }
                return []
            },
            DBusMethod(
                try MemberName("DisplayPasskey"),
                inputs: [DBusArgument("device", "o"), DBusArgument("passkey", "u"), DBusArgument("entered", "q")]
            ) { message in
                record(message)
                return []
            },
            DBusMethod(try MemberName("RequestAuthorization"), inputs: [DBusArgument("device", "o")]) { message in
                record(message)
                if rejects { throw rejected }
                return []
            },
            DBusMethod(try MemberName("Cancel")) { message in
                record(message)
                return []
            },
            DBusMethod(try MemberName("Release")) { message in
                record(message)
                return []
            },
        ]
        try bus.client.export([DBusInterface(try InterfaceName("org.bluez.Agent1"), methods: methods)], at: self.path)
        _ = try await bus.call(
            try ObjectPath("/org/bluez"), BlueZNames.agentManager, "RegisterAgent",
            [.objectPath(self.path), .string(capability)])
        if asDefault {
            _ = try await bus.call(
                try ObjectPath("/org/bluez"), BlueZNames.agentManager, "RequestDefaultAgent", [.objectPath(self.path)])
        }
    }
}
