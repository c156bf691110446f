import Synchronization

/// The reply to a method call already sent, to be awaited later (``DBusConnection/send(awaitingReply:timeout:)``):
/// the call goes out at once, in order with every other message sent on the connection, and whoever needs its
/// outcome asks for it when it needs it. The reply, or the timeout, the connection's end, is kept until then.
public final class DBusPendingReply: Sendable {
    private enum State {
        case waiting([CheckedContinuation<Result<DBusMessage, DBusError>, Never>])
        case done(Result<DBusMessage, DBusError>)
    }

    private let state = Mutex(State.waiting([]))

    init() {}

    /// The reply (a method return) or the error the call met; waits for it if it has not come yet (any number of
    /// tasks may wait; each gets it).
    public func reply() async -> Result<DBusMessage, DBusError> {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Result<DBusMessage, DBusError>? in
                switch state {
                case .done(let result): return result
                case .waiting(let waiters): state = .waiting(waiters + [continuation])
                }
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    /// Called once, by the connection, with what came.
    func fulfil(_ result: Result<DBusMessage, DBusError>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Result<DBusMessage, DBusError>, Never>] in
            guard case .waiting(let waiters) = state else { return [] }
            state = .done(result)
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }
}
