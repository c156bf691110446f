#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the project calls the C library: a call that returns -1 and sets `errno` on failure becomes a
/// Swift call that throws ``Errno``, called again when a signal interrupted it (`EINTR`).
public enum SystemCall {
    /// Calls `call` until it does not fail with `EINTR`; returns its result, or throws the error
    /// number of a failure (a result of -1).
    @inlinable
    public static func retryingOnInterrupt<Result: FixedWidthInteger & SignedInteger>(
        _ call: () -> Result
    ) throws(Errno) -> Result {
        while true {
            let result = call()
            if result != -1 { return result }
            let error = Errno.current
            if error != .interrupted { throw error }
        }
    }

    /// Calls `call` once; returns its result, or throws the error number of a failure (a result of -1).
    /// For calls that must not be repeated after `EINTR` (`close` on Linux has released the number).
    @inlinable
    public static func once<Result: FixedWidthInteger & SignedInteger>(_ call: () -> Result) throws(Errno) -> Result {
        let result = call()
        if result == -1 { throw Errno.current }
        return result
    }
}
