import Synchronization

extension DBusConnection {
    /// Subscribes to the signals matching `rule`, delivered in arrival order.
    ///
    /// The rule is added on the bus (`org.freedesktop.DBus.AddMatch`) before this returns, so
    /// no matching signal sent afterwards is missed. The stream ends when the connection
    /// closes or is lost; when the consumer stops iterating, the rule is removed
    /// (`RemoveMatch`).
    ///
    /// `onDelivery`, when given, sees each of them as the connection reads it, on the connection's thread, before it
    /// is yielded: a reply read after a signal resumes its caller only after `onDelivery` returned for the signal,
    /// which the stream's consumer, a task of its own, cannot promise.
    public func signals(matching rule: DBusMatchRule, onDelivery: (@Sendable (DBusMessage) -> Void)?)
        async throws(DBusError) -> AsyncStream<DBusMessage>
    {
        let (stream, continuation) = AsyncStream.makeStream(of: DBusMessage.self)
        let identifier = try state.withLock { (state) throws(DBusError) -> UInt64 in
            guard state.phase == .open else { throw DBusError.disconnected("The connection to the bus is closed") }
            state.nextSubscription += 1
            state.subscriptions[state.nextSubscription] = ConnectionState.Subscription(
                rule: rule, continuation: continuation, onDelivery: onDelivery)
            return state.nextSubscription
        }
        do {
            _ = try await callBus("AddMatch", [.string(rule.ruleText)])
        } catch {
            state.withLock { _ = $0.subscriptions.removeValue(forKey: identifier) }
            continuation.finish()
            throw error
        }
        if let name = rule.wellKnownSender {
            await watchOwner(of: name)
        }
        continuation.onTermination = { [self] _ in
            unsubscribe(identifier, rule: rule)
        }
        return stream
    }

    private func unsubscribe(_ identifier: UInt64, rule: DBusMatchRule) {
        let (wasActive, lastWatcher) = state.withLock { state in
            let wasActive = state.subscriptions.removeValue(forKey: identifier) != nil
            guard wasActive, let name = rule.wellKnownSender, let count = state.watchedNames[name] else {
                return (wasActive, false)
            }
            if count > 1 {
                state.watchedNames[name] = count - 1
                return (true, false)
            }
            state.watchedNames.removeValue(forKey: name)
            state.nameOwners.removeValue(forKey: name)
            return (true, true)
        }
        guard wasActive else { return }
        removeMatch(rule)
        if lastWatcher, let name = rule.wellKnownSender {
            removeMatch(Self.ownerChangeRule(for: name))
        }
    }

    private func removeMatch(_ rule: DBusMatchRule) {
        let removal = DBusMessage(
            type: .methodCall, destination: Self.busName, path: Self.busPath, interface: Self.busInterface,
            member: MemberName(unchecked: "RemoveMatch"), arguments: [.string(rule.ruleText)], expectsReply: false)
        try? send(removal)
    }

    /// The rule for the bus's `NameOwnerChanged` signals about `name`.
    static func ownerChangeRule(for name: BusName) -> DBusMatchRule {
        DBusMatchRule(
            sender: busName, path: busPath, interface: busInterface, member: MemberName(unchecked: "NameOwnerChanged"),
            stringArguments: [0: name.rawValue])
    }

    /// Starts following the owner of a well-known sender name, so that signals from other
    /// senders that reach this connection through other rules are not delivered for it.
    ///
    /// Until the owner is known, signals are not filtered by sender (the bus filtered them).
    private func watchOwner(of name: BusName) async {
        let isFirst = state.withLock { state in
            state.watchedNames[name, default: 0] += 1
            return state.watchedNames[name] == 1
        }
        guard isFirst else { return }
        // Follow changes first, then ask: a change after the answer arrives after it.
        _ = try? await callBus("AddMatch", [.string(Self.ownerChangeRule(for: name).ruleText)])
        let owner: String
        do {
            owner = try await nameOwner(of: name).rawValue
        } catch {
            // No owner now: nothing is delivered from it until NameOwnerChanged names one.
            // Any other failure leaves the owner unknown, and the bus's own filtering stands.
            guard error.code == .noSuchName else { return }
            owner = ""
        }
        state.withLock { state in
            if state.watchedNames[name] != nil && state.nameOwners[name] == nil {
                state.nameOwners[name] = owner
            }
        }
    }

    /// Records a new owner from a bus `NameOwnerChanged` signal about a followed name.
    func followOwnerChange(_ message: DBusMessage, state: inout ConnectionState) {
        guard message.sender == Self.busName, message.interface == Self.busInterface,
            message.member?.rawValue == "NameOwnerChanged", message.arguments.count == 3,
            let nameText = message.arguments[0].stringValue, let newOwner = message.arguments[2].stringValue
        else { return }
        let name = BusName(unchecked: nameText)
        if state.watchedNames[name] != nil {
            state.nameOwners[name] = newOwner
        }
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
