import SystemSupport

/// What a watched descriptor is ready for (epoll's events).
public struct Readiness: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Data to read (EPOLLIN).
    public static let readable = Readiness(rawValue: 1 << 0)
    /// Room to write (EPOLLOUT).
    public static let writable = Readiness(rawValue: 1 << 1)
    /// The peer closed its end (EPOLLHUP, EPOLLRDHUP); always reported.
    public static let hangUp = Readiness(rawValue: 1 << 2)
    /// An error on the descriptor (EPOLLERR); always reported.
    public static let error = Readiness(rawValue: 1 << 3)

    init(_ events: EpollSet.Events) {
        var readiness: Readiness = []
        if events.contains(.readable) { readiness.insert(.readable) }
        if events.contains(.writable) { readiness.insert(.writable) }
        if !events.isDisjoint(with: [.hangUp, .peerClosed]) { readiness.insert(.hangUp) }
        if events.contains(.error) { readiness.insert(.error) }
        self = readiness
    }

    /// The epoll events to ask for.
    func epollEvents(oneShot: Bool) -> EpollSet.Events {
        var events: EpollSet.Events = oneShot ? .oneShot : []
        if contains(.readable) { events.formUnion([.readable, .peerClosed]) }
        if contains(.writable) { events.insert(.writable) }
        return events
    }
}
