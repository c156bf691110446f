import Glibc

/// The mutable state of a ``DBusConnection``, always accessed under its lock.
struct ConnectionState {
    /// Where the connection is in its life.
    enum Phase: Equatable {
        /// Working.
        case open
        /// The bus went away; the pump has stopped, resources not yet released.
        case disconnected
        /// ``DBusConnection/close()`` was called.
        case closed
    }

    /// A method call waiting for its reply.
    struct PendingCall {
        let token: UInt64
        let continuation: CheckedContinuation<Result<DBusMessage, DBusError>, Never>
        let deadline: ContinuousClock.Instant
        let what: String
    }

    /// A signal subscription.
    struct Subscription {
        let rule: DBusMatchRule
        let continuation: AsyncStream<DBusMessage>.Continuation
    }

    var phase: Phase = .open
    var pending: [UInt32: PendingCall] = [:]
    var cancelledTokens: Set<UInt64> = []
    var nextToken: UInt64 = 0
    var subscriptions: [UInt64: Subscription] = [:]
    var nextSubscription: UInt64 = 0
    var registry = ObjectRegistry()
    /// Owners of the well-known names used as signal senders in match rules: a unique name,
    /// or "" when the name has no owner. Missing while not yet known.
    var nameOwners: [BusName: String] = [:]
    /// How many subscriptions use each well-known sender name.
    var watchedNames: [BusName: Int] = [:]
    /// The deadline the pump's timerfd is armed for (nil: disarmed): the earliest pending call's.
    var timerDeadline: ContinuousClock.Instant?
    var pumpThread: pthread_t?

    /// Removes and returns everything waiting, for failing it after a disconnect or close.
    mutating func takeAllWaiters() -> ([PendingCall], [Subscription]) {
        let calls = Array(pending.values)
        let streams = Array(subscriptions.values)
        pending.removeAll()
        subscriptions.removeAll()
        return (calls, streams)
    }
}
