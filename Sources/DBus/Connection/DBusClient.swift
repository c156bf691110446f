/// What a D-Bus client needs from a connection: method calls and signal subscriptions.
///
/// ``DBusConnection`` is the real implementation. Layers above (such as a BlueZ client) can
/// depend on this protocol and be tested against a fake that returns canned replies.
public protocol DBusClient: Sendable {
    /// Calls a method and returns its reply arguments; see ``DBusConnection/call(destination:path:interface:member:arguments:timeout:)``.
    func call(
        destination: BusName?,
        path: ObjectPath,
        interface: InterfaceName?,
        member: MemberName,
        arguments: [DBusValue],
        timeout: Duration
    ) async throws(DBusError) -> [DBusValue]

    /// Sends a message and waits for nothing: a call with ``DBusMessage/expectsReply`` false (`NO_REPLY_EXPECTED`,
    /// which the receiver answers with nothing, not even an error), a signal; see ``DBusConnection/send(_:)``.
    func send(_ message: DBusMessage) throws(DBusError)

    /// Sends a method call at once and returns its reply to await later; see
    /// ``DBusConnection/send(awaitingReply:timeout:)``.
    func send(awaitingReply message: DBusMessage, timeout: Duration) throws(DBusError) -> DBusPendingReply

    /// Sends `call` with `bytes` as its first argument and `NO_REPLY_EXPECTED`, as ``send(_:)`` sends a message; see
    /// ``DBusConnection/send(_:bytes:)``.
    func send(_ call: DBusPacketCall, bytes: [UInt8]) throws(DBusError)

    /// Sends `call` with `bytes` as its first argument at once and returns its reply to await later, as
    /// ``send(awaitingReply:timeout:)`` does.
    func send(awaitingReply call: DBusPacketCall, bytes: [UInt8], timeout: Duration) throws(DBusError) -> DBusPendingReply

    /// Subscribes to the signals matching a rule; see ``DBusConnection/signals(matching:onDelivery:)``.
    func signals(matching rule: DBusMatchRule, onDelivery: (@Sendable (DBusMessage) -> Void)?)
        async throws(DBusError) -> AsyncStream<DBusMessage>
}

extension DBusClient {
    /// Subscribes to the signals matching a rule; see ``DBusConnection/signals(matching:onDelivery:)``.
    public func signals(matching rule: DBusMatchRule) async throws(DBusError) -> AsyncStream<DBusMessage> {
        try await signals(matching: rule, onDelivery: nil)
    }

    /// `call` with `bytes` built as a message and sent by ``send(_:)``.
    public func send(_ call: DBusPacketCall, bytes: [UInt8]) throws(DBusError) {
        try send(call.message(bytes: bytes, expectsReply: false))
    }

    /// `call` with `bytes` built as a message and sent by ``send(awaitingReply:timeout:)``.
    public func send(awaitingReply call: DBusPacketCall, bytes: [UInt8], timeout: Duration) throws(DBusError)
        -> DBusPendingReply
    {
        try send(awaitingReply: call.message(bytes: bytes, expectsReply: true), timeout: timeout)
    }

    /// Calls a method with the default timeout (25 s).
    public func call(
        destination: BusName?,
        path: ObjectPath,
        interface: InterfaceName?,
        member: MemberName,
        arguments: [DBusValue] = []
    ) async throws(DBusError) -> [DBusValue] {
        try await call(
            destination: destination, path: path, interface: interface, member: member, arguments: arguments,
            timeout: DBusConnection.defaultTimeout)
    }
}
