import BlueZTransport
import DFUCore
import Foundation
import SystemSupport

/// Figure 2 until `dfu upload` is on main: the engine and ``BlueZTransport`` in a child process of their
/// own (`dfu-bench --host-child`), uploading 500 KB to a Secure bootloader served by `dfu-sim` on a
/// private dbus-daemon. The child reports its own CPU (getrusage), peak RSS (VmHWM) and the time from its
/// start (/proc/self/stat, 10 ms ticks) to its first packet write.
public struct EngineHostCost: Sendable {
    /// What one child run reports.
    public struct ChildResult: Sendable, Hashable, Codable {
        /// User + system CPU of the child, seconds.
        public var cpuSeconds: Double
        /// VmHWM, KB.
        public var peakRSSKilobytes: Int
        /// From the child's start to its first packet write (the init packet), ms.
        public var firstByteMilliseconds: Double
        /// From the child's start to its first firmware packet, ms.
        public var firstFirmwareByteMilliseconds: Double
        /// The upload alone (runner start to reset), seconds.
        public var uploadSeconds: Double
    }

    /// The `dfu-sim` executable.
    public var dfuSim: String
    /// Timed runs after one warm-up.
    public var runs = 3
    /// Application size.
    public var bytes = 500_000
    /// The bootloader's address in dfu-sim.
    public static let address = "C0:FF:EE:00:13:00"

    /// A figure served by `dfuSim`.
    public init(dfuSim: String) { self.dfuSim = dfuSim }

    /// Measures AcquireWrite and WriteValue, each with the defaults and without flash pacing.
    public func run(executable: String, progress: (String) -> Void = { _ in }) throws -> [HostCostRow] {
        var rows: [HostCostRow] = []
        for (acquire, paced) in [(true, true), (false, true), (true, false), (false, false)] {
            let mode = "engine, " + (acquire ? "AcquireWrite" : "WriteValue") + (paced ? "" : ", no flash pacing")
            var results: [ChildResult] = []
            var walls: [Double] = []
            for run in 0...max(1, runs) {
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-bench-host-\(CurrentProcess.id).json").path
                defer { try? FileManager.default.removeItem(atPath: file) }
                let usage = try ChildProcess.run([
                    dfuSim, "run", "--device", "secure,address=\(Self.address)", "--",
                    executable, "--host-child", acquire ? "acquire" : "writevalue", paced ? "paced" : "unpaced", "\(bytes)", file,
                ])
                guard usage.status == 0 else { throw BenchError.child("dfu-sim run -- dfu-bench --host-child exited with \(usage.status)") }
                let result = try JSONDecoder().decode(ChildResult.self, from: Data(contentsOf: URL(fileURLWithPath: file)))
                if run > 0 {
                    results.append(result)
                    walls.append(result.uploadSeconds)
                }
                progress("figure 2: \(mode) run \(run): upload \(Spread.format(result.uploadSeconds, digits: 2)) s,"
                         + " CPU \(Spread.format(result.cpuSeconds, digits: 3)) s, RSS \(result.peakRSSKilobytes) KB,"
                         + " first byte \(Spread.format(result.firstByteMilliseconds, digits: 0)) ms")
            }
            guard let wall = Spread(walls), let cpu = Spread(results.map(\.cpuSeconds)),
                let perMB = Spread(results.map { $0.cpuSeconds / (Double(bytes) / 1e6) }),
                let rss = Spread(results.map { Double($0.peakRSSKilobytes) / 1024 }),
                let first = Spread(results.map(\.firstByteMilliseconds)),
                let firstData = Spread(results.map(\.firstFirmwareByteMilliseconds))
            else { throw BenchError.noRuns }
            rows.append(HostCostRow(writeMode: mode, bytes: bytes, wallSeconds: wall, cpuSeconds: cpu,
                                    cpuSecondsPerMegabyte: perMB, peakRSSMegabytes: rss, firstByteMilliseconds: first,
                                    firstFirmwareByteMilliseconds: firstData))
        }
        return rows
    }

    /// The child: `--host-child acquire|writevalue paced|unpaced BYTES FILE`, started by dfu-sim with its bus.
    public static func child(_ arguments: [String]) async throws {
        guard arguments.count == 4, let bytes = Int(arguments[2]), let address = DFUDeviceAddress(Self.address) else {
            throw BenchError.usage("usage: --host-child acquire|writevalue paced|unpaced BYTES FILE")
        }
        let package = ModelledUpload(size: bytes).package
        let bluez = try await BlueZTransport.open()
        await bluez.setAcquiring(write: arguments[0] == "acquire", notify: true)
        let transport = FirstPacketRecorder(bluez)
        var options = DFUOptions()
        if arguments[1] == "unpaced" { options.flashPacing = nil }
        // As `dfu upload` runs it: on the transport's event loop, waiting on its clock.
        func update<C: Clock>(on clock: C) async throws where C.Duration == Duration {
            let runner = DFURunner(transport: transport, clock: clock, options: options)
            _ = try await runner.update(package, device: .address(address))
        }
        let started = ContinuousClock.now
        try await withTaskExecutorPreference(bluez.executor) {
            try await update(on: bluez.clock)
        }
        let upload = started.duration(to: ContinuousClock.now).dfuSecondsValue
        await bluez.close()
        let usage = ResourceUsage.ofCurrentProcess
        let start = processStartNanoseconds()
        let (first, firstFirmware) = transport.firstWrites
        func since(_ time: UInt64?) -> Double { time.map { Double(Int64($0) - Int64(start)) / 1e6 } ?? -1 }
        let result = ChildResult(cpuSeconds: usage.userSeconds + usage.systemSeconds,
                                 peakRSSKilobytes: ScaleFigure.ownPeakRSSKilobytes(), firstByteMilliseconds: since(first),
                                 firstFirmwareByteMilliseconds: since(firstFirmware), uploadSeconds: upload)
        try JSONEncoder().encode(result).write(to: URL(fileURLWithPath: arguments[3]))
    }

    /// This process's start on CLOCK_MONOTONIC, ns (from /proc/self/stat, in clock ticks since boot).
    ///
    /// The start time counts from boot on the boot-time clock; it is turned into CLOCK_MONOTONIC by the
    /// current difference between the two (suspend time; zero on a server).
    static func processStartNanoseconds() -> UInt64 {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        // Fields after the command name start at field 3; the start time is field 22.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let ticks = UInt64(fields[19]) else { return 0 }
        let hertz = SystemClock.ticksPerSecond
        let bootNanoseconds = SystemClock.bootNanoseconds
        let monotonic = SystemClock.monotonicNanoseconds
        let startSinceBoot = ticks * 1_000_000_000 / hertz
        return monotonic - min(monotonic, bootNanoseconds - startSinceBoot)
    }
}
