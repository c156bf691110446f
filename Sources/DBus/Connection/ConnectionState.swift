import IOLoop

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
        let continuation: ReplyWaiter
        let deadline: ContinuousClock.Instant
        let interface: InterfaceName?
        let member: MemberName?

        /// `interface.member`, for error messages (built only when one is needed).
        var what: String { Self.describe(interface, member) }

        static func describe(_ interface: InterfaceName?, _ member: MemberName?) -> String {
            [interface?.rawValue, member?.rawValue].compactMap { $0 }.joined(separator: ".")
        }
    }

    /// Who takes a call's reply: a task suspended in ``DBusConnection/call(_:timeout:)``, or a
    /// ``DBusPendingReply`` that keeps it until asked.
    enum ReplyWaiter: Sendable {
        case task(CheckedContinuation<Result<DBusMessage, DBusError>, Never>)
        case later(DBusPendingReply)

        func resume(returning result: Result<DBusMessage, DBusError>) {
            switch self {
            case .task(let continuation): continuation.resume(returning: result)
            case .later(let pending): pending.fulfil(result)
            }
        }
    }

    /// A signal subscription.
    struct Subscription {
        let rule: DBusMatchRule
        let continuation: AsyncStream<DBusMessage>.Continuation
        /// Called with each matching signal as it is delivered, before it is yielded.
        let onDelivery: (@Sendable (DBusMessage) -> Void)?
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
    /// The deadline ``deadlineTimer`` is set for (nil: none): by the earliest pending call's.
    var timerDeadline: ContinuousClock.Instant?
    /// The loop's timer for ``timerDeadline``.
    var deadlineTimer: LoopTimer?
    /// The loop's watch of the socket; nil once closed or lost.
    var watch: LoopWatch?
    /// Whether the watch asks for room to write too (libdbus holds bytes it could not write yet).
    var watchesForRoom = false

    /// Asks the loop for room to write as well as for data to read, or only for data.
    mutating func watchForRoom(_ wanted: Bool) {
        guard wanted != watchesForRoom, let watch else { return }
        watchesForRoom = wanted
        watch.change(to: wanted ? [.readable, .writable] : .readable)
    }

    /// Takes the socket off the loop and drops the deadline timer.
    mutating func stopWatching() {
        watch?.cancel()
        watch = nil
        deadlineTimer?.cancel()
        deadlineTimer = nil
        timerDeadline = nil
    }

    /// Removes and returns everything waiting, for failing it after a disconnect or close.
    mutating func takeAllWaiters() -> ([PendingCall], [Subscription]) {
        let calls = Array(pending.values)
        let streams = Array(subscriptions.values)
        pending.removeAll()
        subscriptions.removeAll()
        return (calls, streams)
    }
}
