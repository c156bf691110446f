internal import CLinux
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// What a process used, as `getrusage` and `wait4` report it.
public struct ResourceUsage: Sendable, Hashable {
    /// User CPU time, in seconds.
    public let userSeconds: Double
    /// System CPU time, in seconds.
    public let systemSeconds: Double
    /// The largest resident set (`ru_maxrss`), in KiB.
    public let maximumResidentKiB: Int

    public init(userSeconds: Double, systemSeconds: Double, maximumResidentKiB: Int) {
        self.userSeconds = userSeconds
        self.systemSeconds = systemSeconds
        self.maximumResidentKiB = maximumResidentKiB
    }

    init(_ usage: rusage) {
        self.init(
            userSeconds: Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
            systemSeconds: Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6,
            maximumResidentKiB: Int(usage.ru_maxrss))
    }

    /// This process's, so far. The corresponding C function is `getrusage` with `RUSAGE_SELF`.
    public static var ofCurrentProcess: ResourceUsage {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return ResourceUsage(usage)
    }
}
