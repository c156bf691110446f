/// One row of figure 2: what the `dfu` process costs the host for one upload through dfu-sim.
public struct HostCostRow: Sendable, Hashable, Codable {
    /// How packets were written: "AcquireWrite" or "WriteValue", and whether flash pacing was off.
    public var writeMode: String
    /// Firmware bytes uploaded.
    public var bytes: Int
    /// Wall time of the upload, seconds (with `dfu upload`: the whole process).
    public var wallSeconds: Spread
    /// User + system CPU of the `dfu` process, seconds.
    public var cpuSeconds: Spread
    /// CPU seconds per MB (10^6 bytes) uploaded (goal ≤ 0.2 with AcquireWrite).
    public var cpuSecondsPerMegabyte: Spread
    /// Peak RSS of the `dfu` process, MB (goal ≤ 32).
    public var peakRSSMegabytes: Spread
    /// From the start of `dfu` to its first packet write (the init packet), ms (goal ≤ 150).
    public var firstByteMilliseconds: Spread
    /// From the start of `dfu` to its first firmware packet, ms.
    public var firstFirmwareByteMilliseconds: Spread
    /// CPU beyond what `dfu --version` costs, seconds per MiB (2^20 bytes); `dfu upload` rows only.
    public var cpuBeyondStartupSecondsPerMebibyte: Spread? = nil
    /// Voluntary plus involuntary context switches of the process; `dfu upload` rows only.
    public var contextSwitches: Spread? = nil
    /// futex(2) calls in one extra run under `strace -f -c` (not timed); nil without strace.
    public var futexCalls: Int? = nil
    /// poll/ppoll/epoll_wait calls in that run.
    public var pollCalls: Int? = nil
}
