#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a system call failed: the C library's error number (`errno`), read right after the call.
///
/// Every system call of the project goes through this module (``SystemCall``, ``FileDescriptor``,
/// ``FileSystem``, ``CurrentProcess``), so no other module reads `errno` or retries on `EINTR` itself.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    /// The number, as `<errno.h>` defines it.
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's error number now: read it right after the call that failed.
    public static var current: Errno { Errno(rawValue: errno) }

    /// The C library's text for it, as `strerror` gives it ("Broken pipe").
    public var description: String { String(cString: strerror(rawValue)) }

    /// `EINTR`: a signal arrived before the call did anything; ``SystemCall/retryingOnInterrupt(_:)`` calls again.
    public static let interrupted = Errno(rawValue: EINTR)
    /// `EBUSY`.
    public static let busy = Errno(rawValue: EBUSY)
    /// `EAGAIN` (the same number as `EWOULDBLOCK` on Linux): a non-blocking call would have had to wait.
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    /// `EPIPE`: the other end of a pipe or socket is closed.
    public static let brokenPipe = Errno(rawValue: EPIPE)
    /// `ECONNRESET`: the peer reset the connection.
    public static let connectionReset = Errno(rawValue: ECONNRESET)
    /// `ENOTCONN`: the socket is not connected (any more).
    public static let notConnected = Errno(rawValue: ENOTCONN)
    /// `EBADF`: the descriptor is not open.
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    /// `ENOENT`: no such file or folder.
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    /// `EACCES`: permission denied.
    public static let permissionDenied = Errno(rawValue: EACCES)
    /// `EEXIST`: the name is taken.
    public static let fileExists = Errno(rawValue: EEXIST)
    /// `ELOOP`: a symbolic link where `O_NOFOLLOW` forbids one (or too many links).
    public static let tooManySymbolicLinks = Errno(rawValue: ELOOP)
    /// `ENOTDIR`: a part of the path is not a folder.
    public static let notDirectory = Errno(rawValue: ENOTDIR)
    /// `EISDIR`: the name is a folder.
    public static let isDirectory = Errno(rawValue: EISDIR)
}
