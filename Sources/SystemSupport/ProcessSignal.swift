#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A signal number, to handle in this process or to send to another.
public struct ProcessSignal: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    /// `SIGINT` (Ctrl-C).
    public static let interrupt = ProcessSignal(rawValue: SIGINT)
    /// `SIGTERM`.
    public static let terminate = ProcessSignal(rawValue: SIGTERM)
    /// `SIGKILL`: cannot be caught.
    public static let kill = ProcessSignal(rawValue: SIGKILL)
    /// `SIGPIPE`: a write to a closed pipe.
    public static let brokenPipe = ProcessSignal(rawValue: SIGPIPE)
    /// `SIGHUP`.
    public static let hangUp = ProcessSignal(rawValue: SIGHUP)
    /// `SIGQUIT`.
    public static let quit = ProcessSignal(rawValue: SIGQUIT)
    /// `SIGCHLD`: a child ended or stopped.
    public static let childEnded = ProcessSignal(rawValue: SIGCHLD)

    /// Signal 0: sent, it delivers nothing and says only whether the process exists.
    public static let existenceCheck = ProcessSignal(rawValue: 0)

    /// Sends the signal to the process `processIdentifier`. The corresponding C function is `kill`.
    public func send(to processIdentifier: Int32) throws(Errno) {
        _ = try SystemCall.once { Glibc.kill(processIdentifier, rawValue) }
    }
}
