import DFUCore
import DFUSimulator
import Foundation

/// Figure 6: `dfu upload` and smpmgr's `image upload` side by side, each uploading the same ~200 KB MCUboot image to
/// the same simulated Zephyr/MCUboot target over the same link, through `dfu-sim run --device smp` on a private
/// dbus-daemon (a fresh target for every upload, so every slot starts blank). Measured on the wall clock, with figure
/// 2's method for the host cost (`dfu-bench-rusage` around the client: wall, CPU, peak RSS; CPU beyond the client's
/// own start-up per MiB), and the same for `dfu upload` of a 500 KB Secure DFU package to a buttonless nRF5 device
/// (the nRF5 path), so that both of `dfu`'s protocols are measured in the same run.
///
/// The transfer is timed from the first upload answer to the last as each client reports them while it runs: `dfu
/// upload --json`'s progress events and smpmgr's `--loglevel INFO` "Upload offset=" lines, stamped by this process
/// when it reads them. The modelled bound (``SMPTransferBound``) is for the same link and target configuration.
public struct SMPClientsFigure: Sendable {
    /// `dfu`.
    public var dfu: String
    /// `dfu-sim`.
    public var dfuSim: String
    /// `dfu-bench-rusage`, next to `dfu`.
    public var rusage: String
    /// smpmgr (the client suites' venv: `Tests/Clients/venv.sh`).
    public var smpmgr: String
    /// Timed runs of each client after one warm-up.
    public var runs = 3
    /// Body bytes of the MCUboot image (header and TLVs come on top).
    public var bodySize = 200_000
    /// The simulated device's address.
    public var address = "C0:FF:EE:00:00:10"
    /// The nRF5 reference package (figure 2's).
    public var nrf5Package = "Tests/Fixtures/packages/secure-app-512000.zip"
    /// The link `dfu-sim` plays: figure 5's nRF52840-like link (``LinkModel/nrf52840SMP``: LE 2M, ATT MTU 498, 15 ms), with
    /// the SMP target's answers held to the model's pace on the wall clock (`smp_paced=yes`).
    public var link = "mtu=498,interval_ms=15,phy=2m,smp_paced=yes"
    /// Runs of each client's `--version` for its start-up cost.
    public var startupRuns = 11

    /// The client names of the rows.
    public static let dfuSMP = "`dfu upload`, SMP"
    /// smpmgr's row.
    public static let smpmgrSMP = "`smpmgr image upload`"
    /// The nRF5 reference row.
    public static let dfuSecure = "`dfu upload`, Secure DFU (nRF5)"

    /// A figure with these executables; `dfu-bench-rusage` is looked for next to `dfu`.
    public init(dfu: String, dfuSim: String, smpmgr: String) {
        self.dfu = dfu
        self.dfuSim = dfuSim
        self.smpmgr = smpmgr
        let directory = dfu.lastIndex(of: "/").map { String(dfu[...$0]) } ?? ""
        rusage = directory + "dfu-bench-rusage"
    }

    /// Why the figure cannot be measured here, or nil when it can.
    public func missing() -> String? {
        let files = FileManager.default
        guard files.isExecutableFile(atPath: dfuSim) else { return "needs dfu-sim (\(dfuSim)) built" }
        guard files.isExecutableFile(atPath: rusage) else { return "needs dfu-bench-rusage (\(rusage)) built" }
        guard files.isExecutableFile(atPath: smpmgr) else {
            return "needs smpmgr (\(smpmgr)): Tests/Clients/venv.sh installs it, `make bench` passes --smpmgr"
        }
        guard files.fileExists(atPath: nrf5Package) else { return "needs \(nrf5Package)" }
        guard let help = MachineInfo.firstLines(of: [dfuSim, "--help"]), help.contains("smp") else {
            return "needs dfu-sim's `smp` device kind"
        }
        return nil
    }

    /// Measures the three rows.
    public func run(progress: (String) -> Void = { _ in }) throws -> SMPClientsFigureResult {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-bench-smp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let image = SimulatedMCUbootImageBuilder(version: (2, 0, 0, 0)).image(bodySize: bodySize, seed: 7)
        let imagePath = directory.appendingPathComponent("app_update.bin").path
        try Data(image).write(to: URL(fileURLWithPath: imagePath))

        let dfuStartup = try startupSeconds([dfu, "--version"])
        let smpmgrStartup = try startupSeconds([smpmgr, "--version"])
        progress("figure 6: start-up CPU: dfu \(Spread.format(dfuStartup * 1000, digits: 1)) ms,"
                 + " smpmgr \(Spread.format(smpmgrStartup * 1000, digits: 1)) ms")

        // The nRF5 row is figure 2's upload: the stand-in's default link (MTU 247, 15 ms, 1M), dfu's flash pacing.
        let clients: [(name: String, device: String, link: String?, command: [String], startup: Double, reader: AnswerReader)] = [
            (Self.dfuSMP, "smp", link, [dfu, "upload", imagePath, "-d", address, "--no-reset", "--json"], dfuStartup, .dfuJSON),
            (Self.smpmgrSMP, "smp", link, [smpmgr, "--ble", address, "--timeout", "10", "--loglevel", "INFO", "image", "upload", imagePath],
             smpmgrStartup, .smpmgrLog),
            (Self.dfuSecure, "buttonless,sd_id=0xB7", nil, [dfu, "upload", nrf5Package, "-d", address, "--json"], dfuStartup, .dfuJSON),
        ]
        var samples = [[Sample]](repeating: [], count: clients.count)
        var failures: [String: String] = [:]
        for run in 0...max(1, runs) {
            for (index, client) in clients.enumerated() where failures[client.name] == nil {
                let sample: Sample
                do {
                    sample = try measureOnce(device: client.device, link: client.link, command: client.command, reader: client.reader)
                } catch {
                    // One client that cannot upload leaves its row out; the others are still measured.
                    failures[client.name] = "\(error)"
                    progress("figure 6: \(client.name): \(error)")
                    continue
                }
                if run > 0 { samples[index].append(sample) }
                progress("figure 6: \(client.name) run \(run): \(Spread.format(sample.report.wallSeconds, digits: 2)) s wall,"
                         + " transfer \(Spread.format(sample.transferSeconds, digits: 2)) s"
                         + " (\(Spread.format(sample.transferBytesPerSecond / 1000, digits: 1)) kB/s),"
                         + " \(Spread.format(sample.report.cpuSeconds, digits: 3)) s CPU")
            }
        }
        var rows: [SMPClientsRow] = []
        for (index, client) in clients.enumerated() where failures[client.name] == nil {
            let taken = samples[index]
            let bytes = client.name == Self.dfuSecure ? 512_000 : image.count
            guard let wall = Spread(taken.map(\.report.wallSeconds)), let transfer = Spread(taken.map(\.transferSeconds)),
                let rate = Spread(taken.map(\.transferBytesPerSecond)), let cpu = Spread(taken.map(\.report.cpuSeconds)),
                let beyond = Spread(taken.map { ($0.report.cpuSeconds - client.startup) / (Double(bytes) / 1_048_576) }),
                let rss = Spread(taken.map { Double($0.report.peakRSSKilobytes) / 1024 })
            else { throw BenchError.noRuns }
            rows.append(SMPClientsRow(client: client.name, bytes: bytes, wallSeconds: wall, transferSeconds: transfer,
                                      transferBytesPerSecond: rate, cpuSeconds: cpu, cpuBeyondStartupSecondsPerMebibyte: beyond,
                                      peakRSSMegabytes: rss))
        }
        let bound = SMPTransferBound(link: .nrf52840SMP, configuration: ZephyrTargetConfiguration(), imageSize: image.count, secondaryBlank: true)
        return SMPClientsFigureResult(rows: rows, notMeasured: failures, boundSeconds: bound.total.dfuSecondsValue,
                                      boundLimitedBy: bound.limitedBy, imageBytes: image.count, link: link)
    }

    /// The median CPU seconds of `command` (a `--version`) over `startupRuns` runs after a warm-up.
    func startupSeconds(_ command: [String]) throws -> Double {
        var cpu: [Double] = []
        for run in 0...startupRuns {
            let report = try ProcessUsageReport.measuring(command, under: rusage)
            if run > 0 { cpu.append(report.cpuSeconds) }
        }
        guard let spread = Spread(cpu) else { throw BenchError.noRuns }
        return spread.median
    }

    /// How a client reports each upload answer on its output.
    enum AnswerReader: Sendable {
        /// `dfu --json`: `{"event":"progress", "bytes": N, …}` per answer.
        case dfuJSON
        /// smpmgr `--loglevel INFO`: "Upload offset=N" per answer (`upload_with_progress_bar`).
        case smpmgrLog

        /// The acknowledged byte count a line reports, or nil.
        func acknowledged(_ line: String) -> Int? {
            switch self {
            case .dfuJSON:
                guard line.hasPrefix("{"), let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    object["event"] as? String == "progress"
                else { return nil }
                return object["bytes"] as? Int
            case .smpmgrLog:
                guard let range = line.range(of: "Upload offset=") else { return nil }
                return Int(line[range.upperBound...].prefix { $0.isNumber })
            }
        }
    }

    struct Sample {
        var report: ProcessUsageReport
        var transferSeconds: Double
        var transferBytesPerSecond: Double
    }

    /// One upload under `dfu-sim run` with a fresh device of `device` kind on `link` (nil: the stand-in's default): the
    /// client's usage, and its answers' times.
    func measureOnce(device: String, link: String?, command: [String], reader: AnswerReader) throws -> Sample {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: dfuSim)
        // The client's standard output and error come through one pipe, so lines are read as they are written.
        process.arguments = ["run", "--device", "\(device),address=\(address)"] + (link.map { ["--link", $0] } ?? []) + ["--",
                             "/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1", rusage] + command
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONUNBUFFERED"] = "1"
        environment["COLUMNS"] = "300"
        environment["NO_COLOR"] = "1"
        environment["TERM"] = "dumb"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        var first: (time: ContinuousClock.Instant, bytes: Int)?
        var last: (time: ContinuousClock.Instant, bytes: Int)?
        let text = StampedLineReader.read(pipe.fileHandleForReading) { line, now in
            guard let bytes = reader.acknowledged(line) else { return }
            if first == nil { first = (now, bytes) }
            last = (now, bytes)
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError.child("dfu-sim run -- \(command.joined(separator: " ")) exited with \(process.terminationStatus): \(text.suffix(600))")
        }
        guard let report = ProcessUsageReport(parsing: text) else { throw BenchError.child("no dfu-bench-rusage report: \(text.suffix(300))") }
        guard let first, let last, last.bytes > first.bytes else {
            throw BenchError.child("\(command.joined(separator: " ")) reported fewer than two upload answers: \(text.suffix(600))")
        }
        let seconds = first.time.duration(to: last.time).dfuSecondsValue
        return Sample(report: report, transferSeconds: seconds, transferBytesPerSecond: Double(last.bytes - first.bytes) / max(seconds, 1e-9))
    }

    /// The table `make bench` prints for `result`.
    static func lines(_ result: SMPClientsFigureResult?, in table: BenchTable) -> [String] {
        guard let result else { return [] }
        var lines = ["", "Figure 6: SMP through dfu-sim, `dfu` and smpmgr side by side (the same \(result.imageBytes)-byte MCUboot image,"
                     + " target `--device smp` and link \(result.link); wall clock; the nRF5 row: figure 2's 512000-byte Secure DFU upload on the default link)"]
        lines += table.render(header: ["client", "wall s", "transfer s", "transfer kB/s", "CPU s", "beyond start-up s/MiB", "peak RSS MB"],
                              rows: result.rows.map { row in
            [
                row.client, row.wallSeconds.formatted(digits: 2), row.transferSeconds.formatted(digits: 2),
                Spread.format(row.transferBytesPerSecond.median / 1000, digits: 1), row.cpuSeconds.formatted(digits: 3),
                row.cpuBeyondStartupSecondsPerMebibyte.formatted(digits: 3), row.peakRSSMegabytes.formatted(digits: 1),
            ]
        })
        for (client, reason) in result.notMeasured.sorted(by: { $0.key < $1.key }) {
            lines.append("not measured: \(client): " + reason.prefix(300).split(whereSeparator: \.isNewline).joined(separator: " "))
        }
        lines.append("modelled bound (SMPTransferBound, same link and target, blank slot): \(Spread.format(result.boundSeconds, digits: 3)) s,"
                     + " \(Spread.format(result.boundBytesPerSecond / 1000, digits: 1)) kB/s (\(result.boundLimitedBy))")
        if let dfu = result.row(Self.dfuSMP), let smpmgr = result.row(Self.smpmgrSMP) {
            let speedUp = dfu.transferBytesPerSecond.median / max(smpmgr.transferBytesPerSecond.median, 1e-9)
            let ofBound = dfu.transferBytesPerSecond.median / max(result.boundBytesPerSecond, 1e-9)
            var goals = "goals: dfu ≥ 2× smpmgr's transfer rate: \(Spread.format(speedUp, digits: 2))×;"
                + " dfu within 10 % of the bound: \(Spread.format(ofBound * 100, digits: 1)) % of its rate"
            if let secure = result.row(Self.dfuSecure) {
                goals += "; CPU beyond start-up per MiB no higher than the nRF5 path's: SMP"
                    + " \(Spread.format(dfu.cpuBeyondStartupSecondsPerMebibyte.median, digits: 3)) vs nRF5"
                    + " \(Spread.format(secure.cpuBeyondStartupSecondsPerMebibyte.median, digits: 3)) s/MiB"
            }
            lines.append(goals)
        }
        return lines
    }
}
