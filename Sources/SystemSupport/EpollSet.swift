internal import CLinux
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// An epoll set: descriptors watched for readiness, each with a token of the caller's, and one wait
/// for any of them. It owns its own descriptor (``close()``), not the ones it watches.
public struct EpollSet: Sendable {
    /// What to watch for, and what a wait reports (epoll's event bits).
    public struct Events: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// `EPOLLIN`: data to read.
        public static let readable = Events(rawValue: EPOLLIN.rawValue)
        /// `EPOLLOUT`: room to write.
        public static let writable = Events(rawValue: EPOLLOUT.rawValue)
        /// `EPOLLRDHUP`: the peer shut its writing side.
        public static let peerClosed = Events(rawValue: EPOLLRDHUP.rawValue)
        /// `EPOLLHUP`: hung up (always reported).
        public static let hangUp = Events(rawValue: EPOLLHUP.rawValue)
        /// `EPOLLERR`: an error (always reported).
        public static let error = Events(rawValue: EPOLLERR.rawValue)
        /// `EPOLLONESHOT`: report once, then rest until ``EpollSet/modify(_:events:token:)`` asks again.
        public static let oneShot = Events(rawValue: EPOLLONESHOT.rawValue)
    }

    /// One descriptor found ready by ``wait(into:)``.
    public struct Event: Sendable {
        public let token: UInt64
        public let events: Events
    }

    /// Room for the events one wait reports, kept from wait to wait.
    public struct ReadyList: Sendable {
        private var raw: [epoll_event]
        /// How many the last wait reported.
        public private(set) var count = 0

        /// Room for `capacity` events (at least one).
        public init(capacity: Int) { raw = [epoll_event](repeating: epoll_event(), count: max(capacity, 1)) }

        /// The `index`th event of the last wait (below ``count``).
        public subscript(index: Int) -> Event {
            Event(token: raw[index].data.u64, events: Events(rawValue: raw[index].events))
        }

        fileprivate mutating func fill(from set: FileDescriptor) throws(Errno) {
            let capacity = Int32(raw.count)
            // The buffer's base as a non-optional pointer (`raw` holds at least one event): glibc 2.41's
            // header (Debian 13, make deb-arm64) declares epoll_wait's events non-null, 2.36's nullable.
            let result = raw.withUnsafeMutableBufferPointer { pointer in
                Result { () throws(Errno) in
                    guard let events = pointer.baseAddress else { throw Errno(rawValue: EINVAL) }
                    return try SystemCall.retryingOnInterrupt { epoll_wait(set.rawValue, events, capacity, -1) }
                }
            }
            count = Int(try result.get())
        }
    }

    public let descriptor: FileDescriptor

    /// A new empty set, closed on exec. The corresponding C function is `epoll_create1`.
    public init() throws(Errno) {
        descriptor = FileDescriptor(rawValue: try SystemCall.once { epoll_create1(Int32(EPOLL_CLOEXEC)) })
        EpollOwnership.made(descriptor.rawValue)
    }

    /// Watches `fd` for `events`; ``wait(into:)`` reports it with `token`. The corresponding C function
    /// is `epoll_ctl` with `EPOLL_CTL_ADD`.
    public func add(_ fd: FileDescriptor, events: Events, token: UInt64) throws(Errno) {
        try control(EPOLL_CTL_ADD, fd, events: events, token: token)
    }

    /// Changes what `fd` is watched for (and re-arms a one-shot watch). `EPOLL_CTL_MOD`.
    public func modify(_ fd: FileDescriptor, events: Events, token: UInt64) throws(Errno) {
        try control(EPOLL_CTL_MOD, fd, events: events, token: token)
    }

    /// Stops watching `fd`. `EPOLL_CTL_DEL`.
    public func remove(_ fd: FileDescriptor) throws(Errno) {
        try control(EPOLL_CTL_DEL, fd, events: [], token: 0)
    }

    private func control(_ operation: Int32, _ fd: FileDescriptor, events: Events, token: UInt64) throws(Errno) {
        var event = epoll_event()
        event.events = events.rawValue
        event.data.u64 = token
        _ = try SystemCall.once { epoll_ctl(descriptor.rawValue, operation, fd.rawValue, &event) }
    }

    /// Waits without a time limit until at least one watched descriptor is ready, and lists in `ready`
    /// what is (up to its capacity). The corresponding C function is `epoll_wait`, called again after `EINTR`.
    public func wait(into ready: inout ReadyList) throws(Errno) {
        try ready.fill(from: descriptor)
    }

    /// Closes the set's own descriptor.
    public func close() throws(Errno) {
        try EpollOwnership.close(descriptor)
    }
}
