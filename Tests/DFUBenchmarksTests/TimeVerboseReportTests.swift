import DFUBenchmarks
import Testing

@Suite struct TimeVerboseReportTests {
    /// The lines of `/usr/bin/time -v` that matter, between dfu's own output.
    static let sample = """
        uploaded 512000 bytes
        \tCommand being timed: "dfu upload p.zip"
        \tUser time (seconds): 0.08
        \tSystem time (seconds): 0.03
        \tPercent of CPU this job got: 2%
        \tElapsed (wall clock) time (h:mm:ss or m:ss): 1:02.50
        \tMaximum resident set size (kbytes): 18432
        \tExit status: 0
        """

    @Test func readsCPUMemoryAndWallTime() throws {
        let report = try #require(TimeVerboseReport(parsing: Self.sample))
        #expect(report.userSeconds == 0.08)
        #expect(report.systemSeconds == 0.03)
        #expect(report.peakRSSKilobytes == 18432)
        #expect(report.wallSeconds == 62.5)
    }

    @Test func aReportWithoutMemoryIsNoReport() {
        let text = Self.sample.split(separator: "\n").filter { !$0.contains("Maximum resident") }.joined(separator: "\n")
        #expect(TimeVerboseReport(parsing: text) == nil)
    }
}
