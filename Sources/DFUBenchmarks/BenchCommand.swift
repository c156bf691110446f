import DFUCommand
import DFUCore
import Foundation

/// `dfu-bench`: runs the figures, prints the tables and writes the JSON.
///
///     dfu-bench [--json FILE] [--runs N] [--quick] [--swift PATH] [--bin DIR] [--smpmgr PATH] [--peer-nrfdfu PATH]
///               [--figures 1,2,3,4,5,6,7]
///
/// `--bin` is where `dfu` and `dfu-sim` are (default .build/release), for figures 2, 6 and 7; `--smpmgr` is smpmgr
/// for figure 6 (default .build/clients-venv/bin/smpmgr, the venv of `Tests/Clients/venv.sh`); `--peer-nrfdfu` is
/// nrfdfu, built outside this repository, for figure 7 (without it, figure 7 measures `dfu` and says so).
///
/// `--quick` measures a reduced matrix (200 KB only, one timed run) for a smoke check.
/// `--scale-child N shared|separate KB FILE` is internal: one run of figure 4 in a child process.
public enum BenchCommand {
    /// Runs with `arguments` (without the program name); returns the exit status.
    public static func main(_ arguments: [String]) async -> Int32 {
        do {
            if arguments.first == "--host-child" {
                try await EngineHostCost.child(Array(arguments.dropFirst()))
                return 0
            }
            if arguments.first == "--scale-child" {
                try await scaleChild(Array(arguments.dropFirst()))
                return 0
            }
            try await bench(arguments)
            return 0
        } catch {
            FileHandle.standardError.write(Data("dfu-bench: \(error)\n".utf8))
            return 1
        }
    }

    static func scaleChild(_ arguments: [String]) async throws {
        guard arguments.count == 4, let count = Int(arguments[0]), let kilobytes = Int(arguments[2]) else {
            throw BenchError.usage("usage: --scale-child N shared|separate KB FILE")
        }
        let times = try await ScaleFigure.simulate(devices: count, sharedAdapter: arguments[1] == "shared", kilobytes: kilobytes)
        let result = ScaleFigure.ChildResult(times: times, peakRSSKilobytes: ScaleFigure.ownPeakRSSKilobytes())
        try JSONEncoder().encode(result).write(to: URL(fileURLWithPath: arguments[3]))
    }

    static func bench(_ arguments: [String]) async throws {
        let options = try BenchOptions(arguments)
        if options.helpWanted { return print(BenchOptions.usage) }
        let (quick, binaries, figures) = (options.quick, options.binaries, options.figures)
        let started = ContinuousClock.now
        var report = BenchReport(machine: MachineInfo.current(swift: options.swift, dfuVersion: DFUCommand.version))
        let log: (String) -> Void = { FileHandle.standardError.write(Data("\($0)\n".utf8)) }
        if figures.contains("1") {
            var figure = LinkFigure()
            figure.runs = options.timedRuns
            if quick { figure.kilobytes = [200] }
            report.link = try await figure.run(progress: log)
            report.slowFlash = try await SlowFlashFigure().run(progress: log)
        }
        if figures.contains("5") {
            report.smp = try await SMPFigure().run(progress: log)
        }
        if figures.contains("2") { try hostCost(binaries: binaries, runs: options.timedRuns, into: &report, progress: log) }
        if figures.contains("6") {
            var figure = SMPClientsFigure(dfu: binaries + "/dfu", dfuSim: binaries + "/dfu-sim", smpmgr: options.smpmgr)
            if let missing = figure.missing() {
                report.skipped.append(.init(figure: "6", reason: missing))
            } else {
                figure.runs = options.timedRuns
                report.smpClients = try figure.run(progress: log)
            }
        }
        if figures.contains("7") {
            var figure = PeerClientFigure(dfu: options.shippedDfu ?? binaries + "/dfu", dfuSim: binaries + "/dfu-sim",
                                          peerNrfdfu: options.peerNrfdfu)
            if let missing = figure.missing() {
                report.skipped.append(.init(figure: "7", reason: missing))
            } else {
                figure.runs = options.timedRuns
                report.peerClient = try figure.run(progress: log)
            }
        }
        if figures.contains("3") {
            report.skipped.append(.init(figure: "3", reason: "real bluetoothd in the VM is its own run, minutes under"
                + " emulation: `make bench-bluez` (Tests/BlueZVM/bench.sh)"))
        }
        if figures.contains("4") {
            guard let executable = ChildProcess.currentExecutable else { throw BenchError.child("cannot find my own executable") }
            var figure = ScaleFigure()
            figure.runs = options.timedRuns
            report.scale = try await figure.run(executable: executable, progress: log)
        }
        report.benchSeconds = started.duration(to: ContinuousClock.now).dfuSecondsValue
        print(BenchTable(report: report).text, terminator: "")
        if let json = options.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(report).write(to: URL(fileURLWithPath: json))
            log("wrote \(json)")
        }
    }

    /// Figure 2: the `dfu` process's own cost, and the engine's in one process beside `dfu-sim`.
    static func hostCost(binaries: String, runs: Int, into report: inout BenchReport, progress log: @escaping (String) -> Void)
        throws
    {
        let figure = HostCostFigure(dfu: binaries + "/dfu", dfuSim: binaries + "/dfu-sim")
        if let missing = figure.missing() {
            report.skipped.append(.init(figure: "2 (`dfu upload`)", reason: "the `dfu` process itself "
                + missing))
        } else {
            var measured = figure
            measured.runs = runs
            let (rows, startup) = try measured.run(progress: log)
            report.host += rows
            report.startup = startup
        }
        if FileManager.default.isExecutableFile(atPath: figure.dfuSim), let executable = ChildProcess.currentExecutable {
            var engine = EngineHostCost(dfuSim: figure.dfuSim)
            engine.runs = runs
            report.host += try engine.run(executable: executable, progress: log)
        } else {
            report.skipped.append(.init(figure: "2", reason: "needs dfu-sim (\(figure.dfuSim)) built"))
        }
    }
}
