import Foundation

/// Figure 2: the host cost of `dfu upload` for a 500 KB package through `dfu-sim` on a private
/// dbus-daemon: wall, user + system CPU (µs, from wait4), peak RSS and context switches of the `dfu`
/// process (`dfu-bench-rusage`), without and with `-vv`; the time from its start to the first packet it
/// writes (from the `-vv` runs' trace); the cost of starting (`dfu --version`), and futex/poll calls
/// counted in one extra untimed run per mode under `strace -f -c`.
public struct HostCostFigure: Sendable {
    /// The `dfu` executable.
    public var dfu: String
    /// The `dfu-sim` executable.
    public var dfuSim: String
    /// The package (500 KB application).
    public var package = "Tests/Fixtures/packages/secure-app-512000.zip"
    /// Timed runs after one warm-up.
    public var runs = 3
    /// The simulated device's address.
    public var address = "C0:FF:EE:00:00:10"

    /// Runs of `dfu --version` for the start-up row.
    public var startupRuns = 21
    /// The measuring wrapper, built next to `dfu`.
    public var rusage: String

    /// A figure with these executables.
    public init(dfu: String, dfuSim: String) {
        self.dfu = dfu
        self.dfuSim = dfuSim
        let directory = dfu.lastIndex(of: "/").map { String(dfu[...$0]) } ?? ""
        rusage = directory + "dfu-bench-rusage"
    }

    /// strace, when installed: the futex and poll counts are left out without it.
    static let strace = "/usr/bin/strace"

    /// Why the figure cannot be measured here, or nil when it can.
    public func missing() -> String? {
        let files = FileManager.default
        guard files.isExecutableFile(atPath: dfuSim) else { return "needs dfu-sim (\(dfuSim)) built: the stand-in on main" }
        guard files.isExecutableFile(atPath: rusage) else { return "needs dfu-bench-rusage (\(rusage)) built" }
        guard files.fileExists(atPath: package) else { return "needs \(package)" }
        guard let help = MachineInfo.firstLines(of: [dfu, "--help"]), help.contains("upload") else {
            return "needs `dfu upload` on main"
        }
        return nil
    }

    /// Measures three rows: `dfu upload` as users run it (AcquireWrite), `dfu upload --no-acquire` (every packet
    /// a WriteValue call, notifications as PropertiesChanged signals), and `dfu upload -vv`, whose trace of every
    /// packet gives the first-byte times (shown in every row) but costs CPU of its own (a line per packet on stderr).
    public func run(progress: (String) -> Void = { _ in }) throws -> (rows: [HostCostRow], startup: StartupCost) {
        let bytes = 512_000
        let startup = try measureStartup()
        progress("figure 2: dfu --version: \(startup.cpuMilliseconds.formatted(digits: 1)) ms CPU, \(startup.peakRSSMegabytes.formatted(digits: 1)) MB")
        var plain: [Sample] = []
        var writeValue: [Sample] = []
        var verbose: [Sample] = []
        for run in 0...max(1, runs) {
            for (traced, acquiring) in [(false, true), (false, false), (true, true)] {
                let sample = try measureOnce(traced: traced, acquiring: acquiring)
                if run > 0 {
                    if traced { verbose.append(sample) } else if acquiring { plain.append(sample) } else { writeValue.append(sample) }
                }
                progress("figure 2: \(acquiring ? "AcquireWrite" : "WriteValue")\(traced ? " -vv" : "") run \(run): \(Spread.format(sample.report.wallSeconds, digits: 2)) s wall,"
                         + " \(Spread.format(sample.report.cpuSeconds, digits: 4)) s CPU,"
                         + " \(sample.report.peakRSSKilobytes) KB, \(sample.report.contextSwitches) context switches"
                         + (sample.firstByte.map { ", first byte \(Spread.format($0 * 1000, digits: 0)) ms" } ?? ""))
            }
        }
        guard let first = Spread(verbose.compactMap { $0.firstByte.map { $0 * 1000 } }),
            let firstData = Spread(verbose.compactMap { $0.firstFirmwareByte.map { $0 * 1000 } })
        else { throw BenchError.noRuns }
        let startupSeconds = startup.cpuMilliseconds.median / 1000
        func row(_ mode: String, _ samples: [Sample], traced: Bool, acquiring: Bool) throws -> HostCostRow {
            guard let wall = Spread(samples.map(\.report.wallSeconds)),
                let cpu = Spread(samples.map(\.report.cpuSeconds)),
                let perMB = Spread(samples.map { $0.report.cpuSeconds / (Double(bytes) / 1e6) }),
                let beyond = Spread(samples.map { ($0.report.cpuSeconds - startupSeconds) / (Double(bytes) / 1_048_576) }),
                let switches = Spread(samples.map { Double($0.report.contextSwitches) }),
                let rss = Spread(samples.map { Double($0.report.peakRSSKilobytes) / 1024 })
            else { throw BenchError.noRuns }
            let calls = try countCalls(traced: traced, acquiring: acquiring)
            return HostCostRow(writeMode: mode, bytes: bytes, wallSeconds: wall, cpuSeconds: cpu, cpuSecondsPerMegabyte: perMB,
                               peakRSSMegabytes: rss, firstByteMilliseconds: first, firstFirmwareByteMilliseconds: firstData,
                               cpuBeyondStartupSecondsPerMebibyte: beyond, contextSwitches: switches,
                               futexCalls: calls?.total(["futex"]),
                               pollCalls: calls?.total(["poll", "ppoll", "epoll_wait", "epoll_pwait", "epoll_pwait2"]))
        }
        let rows = [
            try row("`dfu upload`, AcquireWrite", plain, traced: false, acquiring: true),
            try row("`dfu upload --no-acquire`, WriteValue", writeValue, traced: false, acquiring: false),
            try row("`dfu upload -vv`, AcquireWrite", verbose, traced: true, acquiring: true),
        ]
        return (rows, startup)
    }

    /// `dfu --version`, `startupRuns` times after a warm-up: CPU and peak RSS.
    func measureStartup() throws -> StartupCost {
        var reports: [ProcessUsageReport] = []
        for run in 0...startupRuns {
            let report = try ProcessUsageReport.measuring([dfu, "--version"], under: rusage)
            if run > 0 { reports.append(report) }
        }
        guard let cpu = Spread(reports.map { $0.cpuSeconds * 1000 }),
            let rss = Spread(reports.map { Double($0.peakRSSKilobytes) / 1024 })
        else { throw BenchError.noRuns }
        return StartupCost(cpuMilliseconds: cpu, peakRSSMegabytes: rss, runs: reports.count)
    }

    /// One more upload under `strace -f -c` (every thread), untimed: the futex and poll calls it made.
    func countCalls(traced: Bool, acquiring: Bool) throws -> SyscallCount? {
        guard FileManager.default.isExecutableFile(atPath: Self.strace) else { return nil }
        let summary = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-bench-strace-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: summary) }
        let command = "exec \(Self.strace) -f -c -e trace=futex,poll,ppoll,epoll_wait,epoll_pwait,epoll_pwait2 -o '\(summary.path)'"
            + " \"$0\" upload \"$1\" -d \"$2\"" + (traced ? " -vv" : "") + (acquiring ? "" : " --no-acquire")
        _ = try runUnderSimulator(command)
        return SyscallCount(parsing: (try? String(contentsOf: summary, encoding: .utf8)) ?? "")
    }

    struct Sample {
        var report: ProcessUsageReport
        /// From the trace of a `-vv` run only.
        var firstByte: Double?
        var firstFirmwareByte: Double?
    }

    func measureOnce(traced: Bool, acquiring: Bool) throws -> Sample {
        let inner = "echo DFU-BENCH-START >&2; exec \"$3\" \"$0\" upload \"$1\" -d \"$2\""
            + (traced ? " -vv" : "") + (acquiring ? "" : " --no-acquire")
        let (process, pipe) = try startUnderSimulator(inner)
        var start: ContinuousClock.Instant?
        var firstByte: Duration?
        var firstFirmwareByte: Duration?
        var created = false
        let text = StampedLineReader.read(pipe.fileHandleForReading) { line, now in
            if line.hasPrefix("DFU-BENCH-START") { start = now }
            guard let start else { return }
            if line.contains("Create Object (01 02") { created = true }
            if line.contains("Secure DFU Packet") {
                if firstByte == nil { firstByte = start.duration(to: now) }
                if created, firstFirmwareByte == nil { firstFirmwareByte = start.duration(to: now) }
            }
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError.child("dfu-sim run -- dfu upload exited with \(process.terminationStatus): \(text.suffix(400))")
        }
        guard let report = ProcessUsageReport(parsing: text) else { throw BenchError.child("no dfu-bench-rusage report") }
        guard !traced || (firstByte != nil && firstFirmwareByte != nil) else {
            throw BenchError.child("no packet line in dfu's -vv log")
        }
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        }
        return Sample(report: report, firstByte: firstByte.map(seconds), firstFirmwareByte: firstFirmwareByte.map(seconds))
    }

    /// Starts `dfu-sim run` with the simulated device and `/bin/sh -c command` under it ($0 = dfu,
    /// $1 = the package, $2 = the address, $3 = dfu-bench-rusage); standard error comes through the pipe.
    func startUnderSimulator(_ command: String) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: dfuSim)
        process.arguments = ["run", "--device", "buttonless,address=\(address),sd_id=0xB7", "--",
                             "/bin/sh", "-c", command, dfu, package, address, rusage]
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return (process, pipe)
    }

    /// Runs `command` under `dfu-sim run` to the end; its standard error.
    func runUnderSimulator(_ command: String) throws -> String {
        let (process, pipe) = try startUnderSimulator(command)
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError.child("dfu-sim run -- \(command) exited with \(process.terminationStatus): \(text.suffix(400))")
        }
        return text
    }
}
