#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The wall-clock time in the local time zone, as text.
public enum LocalTime {
    /// Now, formatted by `strftime` with `format` ("%Y-%m-%d at %H:%M:%S": `2026-12-01 at 15:56:37`).
    ///
    /// The corresponding C functions are `time`, `localtime_r` and `strftime`.
    public static func now(format: String) -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, format, &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
