internal import CLinux
import Glibc

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

    init(epollEvents flags: UInt32) {
        var readiness: Readiness = []
        if flags & EPOLLIN.rawValue != 0 { readiness.insert(.readable) }
        if flags & EPOLLOUT.rawValue != 0 { readiness.insert(.writable) }
        if flags & (EPOLLHUP.rawValue | EPOLLRDHUP.rawValue) != 0 { readiness.insert(.hangUp) }
        if flags & EPOLLERR.rawValue != 0 { readiness.insert(.error) }
        self = readiness
    }

    /// The epoll events to ask for.
    var epollEvents: UInt32 {
        var flags: UInt32 = 0
        if contains(.readable) { flags |= EPOLLIN.rawValue | EPOLLRDHUP.rawValue }
        if contains(.writable) { flags |= EPOLLOUT.rawValue }
        return flags
    }
}
