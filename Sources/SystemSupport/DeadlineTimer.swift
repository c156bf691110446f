internal import CLinux
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// A timerfd on `CLOCK_BOOTTIME` (the clock of Swift's `ContinuousClock` on Linux): its descriptor
/// becomes readable when the time it was armed for has passed. Non-blocking, closed on exec.
public struct DeadlineTimer: Sendable {
    public let descriptor: FileDescriptor

    /// The corresponding C function is `timerfd_create`.
    public init() throws(Errno) {
        descriptor = FileDescriptor(
            rawValue: try SystemCall.once { timerfd_create(CLOCK_BOOTTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK)) })
    }

    /// Arms it to expire once, `delay` from now (at least a nanosecond: zero would disarm it).
    /// The corresponding C function is `timerfd_settime`.
    public func arm(after delay: Duration) {
        let remaining = max(delay, .nanoseconds(1))
        var setting = itimerspec()
        setting.it_value.tv_sec = Int(remaining.components.seconds)
        setting.it_value.tv_nsec = Int(remaining.components.attoseconds / 1_000_000_000)
        _ = timerfd_settime(descriptor.rawValue, 0, &setting, nil)
    }

    /// Reads its expirations: the descriptor is no longer readable until it expires again.
    public func acknowledge() {
        var expirations: UInt64 = 0
        _ = try? withUnsafeMutableBytes(of: &expirations) { bytes throws(Errno) in try descriptor.read(into: bytes) }
    }

    public func close() throws(Errno) {
        try descriptor.close()
    }
}
