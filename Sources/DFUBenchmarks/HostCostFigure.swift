import Foundation

/// Figure 2: the host cost of `dfu upload` for a 500 KB package through `dfu-sim` on a private
/// dbus-daemon: wall, user + system CPU and peak RSS of the `dfu` process (`/usr/bin/time -v`), without
/// and with `-vv`, and the time from its start to the first packet it writes (from the `-vv` runs' trace).
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

    /// A figure with these executables.
    public init(dfu: String, dfuSim: String) {
        self.dfu = dfu
        self.dfuSim = dfuSim
    }

    /// Why the figure cannot be measured here, or nil when it can.
    public func missing() -> String? {
        let files = FileManager.default
        guard files.isExecutableFile(atPath: dfuSim) else { return "needs dfu-sim (\(dfuSim)) built: the stand-in on main" }
        guard files.isExecutableFile(atPath: "/usr/bin/time") else { return "needs /usr/bin/time (Debian package time)" }
        guard files.fileExists(atPath: package) else { return "needs \(package)" }
        guard let help = MachineInfo.firstLines(of: [dfu, "--help"]), help.contains("upload") else {
            return "needs `dfu upload` on main"
        }
        return nil
    }

    /// Measures three rows: `dfu upload` as users run it (AcquireWrite), `dfu upload --no-acquire` (every packet
    /// a WriteValue call, notifications as PropertiesChanged signals), and `dfu upload -vv`, whose trace of every
    /// packet gives the first-byte times (shown in every row) but costs CPU of its own (a line per packet on stderr).
    public func run(progress: (String) -> Void = { _ in }) throws -> [HostCostRow] {
        let bytes = 512_000
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
                         + " \(Spread.format(sample.report.userSeconds + sample.report.systemSeconds, digits: 3)) s CPU,"
                         + " \(sample.report.peakRSSKilobytes) KB"
                         + (sample.firstByte.map { ", first byte \(Spread.format($0 * 1000, digits: 0)) ms" } ?? ""))
            }
        }
        guard let first = Spread(verbose.compactMap { $0.firstByte.map { $0 * 1000 } }),
            let firstData = Spread(verbose.compactMap { $0.firstFirmwareByte.map { $0 * 1000 } })
        else { throw BenchError.noRuns }
        func row(_ mode: String, _ samples: [Sample]) throws -> HostCostRow {
            guard let wall = Spread(samples.map(\.report.wallSeconds)),
                let cpu = Spread(samples.map { $0.report.userSeconds + $0.report.systemSeconds }),
                let perMB = Spread(samples.map { ($0.report.userSeconds + $0.report.systemSeconds) / (Double(bytes) / 1e6) }),
                let rss = Spread(samples.map { Double($0.report.peakRSSKilobytes) / 1024 })
            else { throw BenchError.noRuns }
            return HostCostRow(writeMode: mode, bytes: bytes, wallSeconds: wall, cpuSeconds: cpu, cpuSecondsPerMegabyte: perMB,
                               peakRSSMegabytes: rss, firstByteMilliseconds: first, firstFirmwareByteMilliseconds: firstData)
        }
        return [
            try row("`dfu upload`, AcquireWrite", plain), try row("`dfu upload --no-acquire`, WriteValue", writeValue),
            try row("`dfu upload -vv`, AcquireWrite", verbose),
        ]
    }

    struct Sample {
        var report: TimeVerboseReport
        /// From the trace of a `-vv` run only.
        var firstByte: Double?
        var firstFirmwareByte: Double?
    }

    func measureOnce(traced: Bool, acquiring: Bool) throws -> Sample {
        let inner = "echo DFU-BENCH-START >&2; exec /usr/bin/time -v \"$0\" upload \"$1\" -d \"$2\""
            + (traced ? " -vv" : "") + (acquiring ? "" : " --no-acquire")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: dfuSim)
        process.arguments = ["run", "--device", "buttonless,address=\(address),sd_id=0xB7", "--",
                             "/bin/sh", "-c", inner, dfu, package, address]
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let reader = pipe.fileHandleForReading
        var text = ""
        var pending = ""
        var start: ContinuousClock.Instant?
        var firstByte: Duration?
        var firstFirmwareByte: Duration?
        var created = false
        while true {
            let data = reader.availableData
            if data.isEmpty { break }
            let now = ContinuousClock.now
            pending += String(decoding: data, as: UTF8.self)
            while let newline = pending.firstIndex(of: "\n") {
                let line = String(pending[..<newline])
                pending.removeSubrange(...newline)
                text += line + "\n"
                if line.hasPrefix("DFU-BENCH-START") { start = now }
                guard let start else { continue }
                if line.contains("Create Object (01 02") { created = true }
                if line.contains("Secure DFU Packet") {
                    if firstByte == nil { firstByte = start.duration(to: now) }
                    if created, firstFirmwareByte == nil { firstFirmwareByte = start.duration(to: now) }
                }
            }
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError.child("dfu-sim run -- dfu upload exited with \(process.terminationStatus): \(text.suffix(400))")
        }
        guard let report = TimeVerboseReport(parsing: text) else { throw BenchError.child("no /usr/bin/time report") }
        guard !traced || (firstByte != nil && firstFirmwareByte != nil) else {
            throw BenchError.child("no packet line in dfu's -vv log")
        }
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        }
        return Sample(report: report, firstByte: firstByte.map(seconds), firstFirmwareByte: firstFirmwareByte.map(seconds))
    }
}
