internal import CLinux
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The kernel's clocks as nanosecond counts, for figures compared with the kernel's own (a process's
/// start time, another process's timestamps).
public enum SystemClock {
    /// `CLOCK_MONOTONIC`, in nanoseconds: stops while the machine is suspended.
    public static var monotonicNanoseconds: UInt64 { read(CLOCK_MONOTONIC) }

    /// `CLOCK_REALTIME`, in nanoseconds since 1970-01-01 00:00 UTC: the wall clock, which may be set back.
    public static var realtimeNanoseconds: UInt64 { read(CLOCK_REALTIME) }

    /// `CLOCK_BOOTTIME`, in nanoseconds since boot, suspended time included.
    public static var bootNanoseconds: UInt64 { read(CLOCK_BOOTTIME) }

    /// The kernel's clock ticks per second (`_SC_CLK_TCK`), the unit of times in `/proc/PID/stat`.
    public static var ticksPerSecond: UInt64 { UInt64(max(1, sysconf(Int32(_SC_CLK_TCK)))) }

    /// The corresponding C function is `clock_gettime`.
    private static func read(_ clock: clockid_t) -> UInt64 {
        var now = timespec()
        clock_gettime(clock, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
