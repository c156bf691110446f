import SystemSupport

/// A system call the loop needs failed (descriptors or threads exhausted).
public struct EventLoopError: Error, Sendable, CustomStringConvertible {
    /// The call, such as `epoll_ctl`.
    public let operation: String
    /// Its errno (or `pthread_create`'s result).
    public let code: Int32

    public var description: String { "\(operation): \(Errno(rawValue: code))" }
}
