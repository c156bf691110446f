#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// This process: its ids, its signal dispositions, its end.
public enum CurrentProcess {
    /// A signal number.
    public struct Signal: RawRepresentable, Hashable, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// `SIGINT` (Ctrl-C).
        public static let interrupt = Signal(rawValue: SIGINT)
        /// `SIGTERM`.
        public static let terminate = Signal(rawValue: SIGTERM)
        /// `SIGPIPE`: a write to a closed pipe.
        public static let brokenPipe = Signal(rawValue: SIGPIPE)
        /// `SIGHUP`.
        public static let hangUp = Signal(rawValue: SIGHUP)
    }

    /// The process id. The corresponding C function is `getpid`.
    public static var id: Int32 { getpid() }

    /// The effective user id. The corresponding C function is `geteuid`.
    public static var effectiveUserID: UInt32 { geteuid() }

    /// The environment variables. The corresponding C variable is `environ`.
    public static var environment: [String: String] {
        var result: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            cursor += 1
        }
        return result
    }

    /// One environment variable, or nil when unset. The corresponding C function is `getenv`.
    public static func environmentValue(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Makes the kernel drop `signal` for this process (a dispatch signal source still sees it).
    /// The corresponding C function is `signal` with `SIG_IGN`.
    public static func ignore(_ signal: Signal) {
        _ = Glibc.signal(signal.rawValue, SIG_IGN)
    }

    /// Ends the process with `status`, running `atexit` handlers and flushing C streams.
    public static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }
}
