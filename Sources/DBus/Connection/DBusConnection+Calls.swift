internal import CDBus
import Synchronization

extension DBusConnection {
    static let busName = BusName(unchecked: "org.freedesktop.DBus")
    static let busPath = ObjectPath(unchecked: "/org/freedesktop/DBus")
    static let busInterface = InterfaceName(unchecked: "org.freedesktop.DBus")

    /// Calls a method and waits for its reply arguments.
    ///
    /// Throws the remote error (name and message kept), or a local one: code
    /// ``DBusError/Code/timedOut`` after `timeout`, ``DBusError/Code/disconnected`` when the
    /// connection goes away, ``DBusError/Code/cancelled`` when the task is cancelled.
    public func call(
        destination: BusName?,
        path: ObjectPath,
        interface: InterfaceName?,
        member: MemberName,
        arguments: [DBusValue] = [],
        timeout: Duration = DBusConnection.defaultTimeout
    ) async throws(DBusError) -> [DBusValue] {
        let message = DBusMessage(
            type: .methodCall, destination: destination, path: path, interface: interface, member: member,
            arguments: arguments)
        return try await call(message, timeout: timeout).arguments
    }

    /// Sends a method call message and waits for its method return message.
    public func call(_ message: DBusMessage, timeout: Duration = DBusConnection.defaultTimeout) async throws(DBusError)
        -> DBusMessage
    {
        guard message.type == .methodCall, message.expectsReply else {
            throw DBusError.invalidArguments("Only a method call that expects a reply can be awaited")
        }
        let handle = try templates.handle(for: message)
        let (interface, member) = (message.interface, message.member)
        let token = state.withLock { state in
            state.nextToken += 1
            return state.nextToken
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<DBusMessage, DBusError>, Never>) in
                let failure = state.withLock { state -> DBusError? in
                    if state.cancelledTokens.remove(token) != nil {
                        let what = ConnectionState.PendingCall.describe(interface, member)
                        return DBusError.cancelled("The call to \(what) was cancelled")
                    }
                    do throws(DBusError) {
                        let serial = try sendLocked(handle, state: &state)
                        let deadline = ContinuousClock.now.advanced(by: timeout)
                        state.pending[serial] = ConnectionState.PendingCall(
                            token: token, continuation: .task(continuation), deadline: deadline, interface: interface,
                            member: member)
                        armDeadlineTimer(deadline, state: &state)
                        return nil
                    } catch {
                        return error
                    }
                }
                if let failure {
                    continuation.resume(returning: .failure(failure))
                }
            }
        } onCancel: {
            cancelCall(token: token, what: ConnectionState.PendingCall.describe(interface, member))
        }
        state.withLock { _ = $0.cancelledTokens.remove(token) }
        return try result.get()
    }

    /// Sends a method call at once and returns its reply to await later: the call is in order with every message
    /// sent before and after it, which a call awaited in a task of its own would not be. The reply is kept until
    /// asked for; after `timeout` it is ``DBusError/Code/timedOut``. Nothing cancels it.
    public func send(awaitingReply message: DBusMessage, timeout: Duration = DBusConnection.defaultTimeout)
        throws(DBusError) -> DBusPendingReply
    {
        guard message.type == .methodCall, message.expectsReply else {
            throw DBusError.invalidArguments("Only a method call that expects a reply can be awaited")
        }
        return try send(
            awaitingReply: try templates.handle(for: message), interface: message.interface, member: message.member,
            timeout: timeout)
    }

    /// Sends `call` with `bytes` as its first argument at once, as a copy of the call built once for their count
    /// (``DBusPacketCall``), and returns its reply to await later, as ``send(awaitingReply:timeout:)`` does.
    public func send(awaitingReply call: DBusPacketCall, bytes: [UInt8], timeout: Duration = DBusConnection.defaultTimeout)
        throws(DBusError) -> DBusPendingReply
    {
        try send(
            awaitingReply: try call.handle(bytes: bytes, expectsReply: true), interface: call.interface,
            member: call.member, timeout: timeout)
    }

    /// Sends `handle`, a method call expecting a reply, and registers the pending reply.
    private func send(awaitingReply handle: MessageHandle, interface: InterfaceName?, member: MemberName?, timeout: Duration)
        throws(DBusError) -> DBusPendingReply
    {
        let pending = DBusPendingReply()
        try state.withLock { (state) throws(DBusError) in
            state.nextToken += 1
            let serial = try sendLocked(handle, state: &state)
            let deadline = ContinuousClock.now.advanced(by: timeout)
            state.pending[serial] = ConnectionState.PendingCall(
                token: state.nextToken, continuation: .later(pending), deadline: deadline, interface: interface,
                member: member)
            armDeadlineTimer(deadline, state: &state)
        }
        return pending
    }

    private func cancelCall(token: UInt64, what: String) {
        let call = state.withLock { state -> ConnectionState.PendingCall? in
            guard let (serial, call) = state.pending.first(where: { $0.value.token == token }) else {
                state.cancelledTokens.insert(token)
                return nil
            }
            state.pending.removeValue(forKey: serial)
            return call
        }
        call?.continuation.resume(returning: .failure(DBusError.cancelled("The call to \(what) was cancelled")))
    }

    /// Calls a method of the bus itself (`org.freedesktop.DBus`).
    func callBus(_ member: String, _ arguments: [DBusValue]) async throws(DBusError) -> [DBusValue] {
        try await call(
            destination: Self.busName, path: Self.busPath, interface: Self.busInterface,
            member: MemberName(unchecked: member), arguments: arguments)
    }

    /// Asks the bus for a well-known name and fails unless this connection becomes its primary owner.
    ///
    /// The corresponding D-Bus method is `org.freedesktop.DBus.RequestName` (with `DO_NOT_QUEUE`,
    /// plus `REPLACE_EXISTING` when `replaceExisting` is set).
    public func requestName(_ name: BusName, replaceExisting: Bool = false) async throws(DBusError) {
        let flags: UInt32 = 0x4 | (replaceExisting ? 0x2 : 0)
        let reply = try await callBus("RequestName", [.string(name.rawValue), .uint32(flags)])
        // 1: primary owner now; 4: already the owner.
        guard let code = reply.first?.integerValue, code == 1 || code == 4 else {
            throw DBusError.failed("The name \(name) is already owned by another connection")
        }
    }

    /// Gives a well-known name back to the bus (`org.freedesktop.DBus.ReleaseName`).
    public func releaseName(_ name: BusName) async throws(DBusError) {
        _ = try await callBus("ReleaseName", [.string(name.rawValue)])
    }

    /// The unique name of the owner of `name` (`org.freedesktop.DBus.GetNameOwner`).
    public func nameOwner(of name: BusName) async throws(DBusError) -> BusName {
        let reply = try await callBus("GetNameOwner", [.string(name.rawValue)])
        guard let owner = reply.first?.stringValue else {
            throw DBusError.invalidArguments("GetNameOwner returned no name")
        }
        return BusName(unchecked: owner)
    }
}
