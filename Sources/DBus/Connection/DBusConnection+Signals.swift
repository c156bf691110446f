import Synchronization

extension DBusConnection {
    /// Subscribes to the signals matching `rule`, delivered in arrival order.
    ///
    /// The rule is added on the bus (`org.freedesktop.DBus.AddMatch`) before this returns, so
    /// no matching signal sent afterwards is missed. The stream ends when the connection
    /// closes or is lost; when the consumer stops iterating, the rule is removed
    /// (`RemoveMatch`).
    public func signals(matching rule: DBusMatchRule) async throws(DBusError) -> AsyncStream<DBusMessage> {
        let (stream, continuation) = AsyncStream.makeStream(of: DBusMessage.self)
        let identifier = try state.withLock { (state) throws(DBusError) -> UInt64 in
            guard state.phase == .open else { throw DBusError.disconnected("The connection to the bus is closed") }
            state.nextSubscription += 1
            state.subscriptions[state.nextSubscription] = ConnectionState.Subscription(
                rule: rule, continuation: continuation)
            return state.nextSubscription
        }
        do {
            _ = try await callBus("AddMatch", [.string(rule.ruleText)])
        } catch {
            state.withLock { _ = $0.subscriptions.removeValue(forKey: identifier) }
            continuation.finish()
            throw error
        }
        continuation.onTermination = { [self] _ in
            unsubscribe(identifier, rule: rule)
        }
        return stream
    }

    private func unsubscribe(_ identifier: UInt64, rule: DBusMatchRule) {
        let wasActive = state.withLock { $0.subscriptions.removeValue(forKey: identifier) != nil }
        guard wasActive else { return }
        let removal = DBusMessage(
            type: .methodCall, destination: Self.busName, path: Self.busPath, interface: Self.busInterface,
            member: MemberName(unchecked: "RemoveMatch"), arguments: [.string(rule.ruleText)], expectsReply: false)
        try? send(removal)
    }

    /// Emits a signal from an object of this connection, to everyone subscribed or to `destination`.
    public func emitSignal(
        path: ObjectPath,
        interface: InterfaceName,
        member: MemberName,
        arguments: [DBusValue] = [],
        destination: BusName? = nil
    ) throws(DBusError) {
        try send(
            DBusMessage(
                type: .signal, destination: destination, path: path, interface: interface, member: member,
                arguments: arguments))
    }
}
