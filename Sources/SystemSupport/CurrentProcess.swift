#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// This process: its ids, its signal dispositions, its end.
public enum CurrentProcess {
    /// The process id. The corresponding C function is `getpid`.
    public static var id: Int32 { getpid() }

    /// The path of the running executable (the link `/proc/self/exe`), or nil. The corresponding C
    /// function is `readlink`.
    public static var executablePath: String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The effective user id. The corresponding C function is `geteuid`.
    public static var effectiveUserID: UInt32 { geteuid() }

    /// The environment variables. The corresponding C variable is `environ`.
    public static var environment: [String: String] { variables(in: environ) }

    /// The variables of an `environ`-style list (`NAME=VALUE` entries up to a null pointer). Each entry is split at
    /// its first `=` byte, where POSIX names end (a `=` that a combining mark follows is still the separator),
    /// without reading the entry as Characters first: every command starts with this.
    static func variables(in list: UnsafePointer<UnsafeMutablePointer<CChar>?>) -> [String: String] {
        var result: [String: String] = [:]
        var cursor = list
        while let entry = cursor.pointee {
            if let equals = strchr(entry, 0x3D) {
                let name = UnsafeRawBufferPointer(start: entry, count: entry.distance(to: equals))
                result[String(decoding: name, as: UTF8.self)] = String(cString: equals + 1)
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
    public static func ignore(_ signal: ProcessSignal) {
        _ = Glibc.signal(signal.rawValue, SIG_IGN)
    }

    /// Ends the process with `status`, running `atexit` handlers and flushing C streams.
    public static func exit(_ status: Int32) -> Never {
        Glibc.exit(status)
    }
}
