import DFUBenchmarks
import Testing

@Suite struct ProcessUsageReportTests {
    /// dfu's own output, then the wrapper's line (µs figures from wait4).
    static let sample = """
        C0:FF:EE:00:00:10: updated in 16.2 s
        dfu-bench-rusage: status=0 wall_us=16204511 user_us=81234 sys_us=30567 maxrss_kb=15420 nvcsw=3712 nivcsw=41
        """

    @Test func readsMicrosecondCPUMemorySwitchesAndWallTime() throws {
        let report = try #require(ProcessUsageReport(parsing: Self.sample))
        #expect(report.status == 0)
        #expect(report.userSeconds == 0.081234)
        #expect(report.systemSeconds == 0.030567)
        #expect(report.peakRSSKilobytes == 15420)
        #expect(report.wallSeconds == 16.204511)
        #expect(report.contextSwitches == 3753)
    }

    @Test func aLineWithoutTheSwitchCountsIsNoReport() {
        #expect(ProcessUsageReport(parsing: "dfu-bench-rusage: status=0 wall_us=1 user_us=1 sys_us=1 maxrss_kb=1") == nil)
        #expect(ProcessUsageReport(parsing: "no report here") == nil)
    }
}

@Suite struct SyscallCountTests {
    /// `strace -f -c -e trace=futex,poll,ppoll,epoll_wait` of an upload, shortened.
    static let summary = """
        % time     seconds  usecs/call     calls    errors syscall
        ------ ----------- ----------- --------- --------- ----------------
         71.22    0.004310           4       934       112 futex
         28.78    0.001742           3       567           poll
        ------ ----------- ----------- --------- --------- ----------------
        100.00    0.006052           4      1501       112 total
        """

    @Test func countsCallsPerSystemCallAndIgnoresTheTotal() {
        let counted = SyscallCount(parsing: Self.summary)
        #expect(counted.calls["futex"] == 934)
        #expect(counted.calls["poll"] == 567)
        #expect(counted.total(["poll", "ppoll", "epoll_wait"]) == 567)
        #expect(counted.calls["total"] == nil)
    }
}
