import Synchronization

/// A clock whose time moves only when something waits on it or the simulation advances it.
///
/// `sleep` returns at once after moving the time forward, so tests never sleep in real time.
/// Meant for one driving task (the runner) plus the simulated link, which share it.
public final class VirtualClock: Clock, Sendable {
    /// A point in virtual time: the duration since the clock was made.
    public struct Instant: InstantProtocol, Sendable, Hashable, CustomStringConvertible {
        /// Time since the start.
        public var offset: Duration

        /// Makes an instant.
        public init(offset: Duration) { self.offset = offset }

        /// Moves the instant.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

        /// The duration until `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }

        /// Earlier first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }

        /// e.g. "t=1.234 s".
        public var description: String { "t=\(offset)" }
    }

    private let time = Mutex(Duration.zero)

    /// A clock at time zero.
    public init() {}

    /// The current virtual time.
    public var now: Instant { Instant(offset: time.withLock { $0 }) }

    /// One nanosecond.
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Moves time to `deadline` (if it is later) and returns immediately.
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        advance(to: deadline.offset)
    }

    /// Moves time forward to `offset` (never backwards).
    public func advance(to offset: Duration) {
        time.withLock { $0 = max($0, offset) }
    }

    /// Moves time forward by `duration`.
    public func advance(by duration: Duration) {
        time.withLock { $0 += max(.zero, duration) }
    }

    /// The current time as a duration since the start.
    public var elapsed: Duration { time.withLock { $0 } }
}
