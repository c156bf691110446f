import DFUCore
public import DFUSimulator
import Foundation
import SystemSupport

/// Figure 4: N simulated devices updated at once, each by its own runner in one process.
///
/// With one adapter each, every device has the whole link model; with one adapter for all, the
/// connections share the radio: each gets 1/N of every connection event, and when that is less
/// than one full packet the connection interval is stretched so that N packets fit in it.
public struct ScaleFigure: Sendable {
    /// Device counts.
    public var counts = [1, 4, 16]
    /// Application size in KB.
    public var kilobytes = 200
    /// Timed runs per row (each in a fresh child process) after one warm-up.
    public var runs = 3

    /// What one child run reports: each device's modelled time, and its own peak RSS.
    public struct ChildResult: Sendable, Hashable, Codable {
        /// Modelled seconds per device.
        public var times: [Double]
        /// VmHWM of the child, KB.
        public var peakRSSKilobytes: Int
    }

    /// The defaults.
    public init() {}

    /// This process's peak RSS (VmHWM in /proc/self/status), KB; 0 when unknown.
    ///
    /// `wait4`'s `ru_maxrss` is no use for a child made with `posix_spawn`: the child shares the parent's
    /// memory until it executes, and Linux keeps that high-water mark across `execve`.
    public static func ownPeakRSSKilobytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }

    /// The link each of `devices` connections gets.
    public static func link(devices: Int, sharedAdapter: Bool) -> LinkModel {
        var link = LinkModel()
        guard sharedAdapter, devices > 1 else { return link }
        let share = link.usableEventLength / devices
        let packet = link.exchangeTime(attPayload: link.maximumWriteLength)
        if share >= packet {
            link.eventLength = share
        } else {
            let intervals = (packet * devices + link.usableEventLength - .nanoseconds(1)) / link.usableEventLength
            let slots = Int(intervals.rounded(.up))
            link.connectionInterval = link.connectionInterval * slots
            link.eventLength = max(packet, (link.connectionInterval - .microseconds(1250)) / devices)
        }
        return link
    }

    /// Runs `devices` uploads at once in this process; returns each device's modelled time, seconds.
    public static func simulate(devices: Int, sharedAdapter: Bool, kilobytes: Int) async throws -> [Double] {
        let upload = ModelledUpload(size: kilobytes * 1000)
        let link = link(devices: devices, sharedAdapter: sharedAdapter)
        return try await withThrowingTaskGroup(of: Double.self) { group in
            for _ in 0..<devices {
                group.addTask {
                    let outcome = try await upload.run(link: link, options: DFUOptions())
                    guard outcome.installed else { throw BenchError.notInstalled("scale, \(devices) devices") }
                    return outcome.elapsed.dfuSecondsValue
                }
            }
            var times: [Double] = []
            for try await time in group { times.append(time) }
            return times
        }
    }

    /// Runs every row, each run in a child `executable --scale-child N shared|separate KB result-file`.
    public func run(executable: String, progress: (String) -> Void = { _ in }) async throws -> [ScaleFigureRow] {
        let single = try await Self.simulate(devices: 1, sharedAdapter: false, kilobytes: kilobytes).first ?? 0
        var rows: [ScaleFigureRow] = []
        for shared in [false, true] {
            for count in counts {
                let file = FileManager.default.temporaryDirectory
                    .appendingPathComponent("dfu-bench-scale-\(CurrentProcess.id)-\(count).json").path
                defer { try? FileManager.default.removeItem(atPath: file) }
                var usages: [ChildProcess.Usage] = []
                var rssValues: [Double] = []
                var times: [Double] = []
                for run in 0...max(1, runs) {
                    let usage = try ChildProcess.run([executable, "--scale-child", "\(count)",
                                                      shared ? "shared" : "separate", "\(kilobytes)", file])
                    guard usage.status == 0 else { throw BenchError.child("--scale-child \(count) exited with \(usage.status)") }
                    let data = try Data(contentsOf: URL(fileURLWithPath: file))
                    let result = try JSONDecoder().decode(ChildResult.self, from: data)
                    times = result.times
                    if run > 0 {
                        usages.append(usage)
                        rssValues.append(Double(result.peakRSSKilobytes) / 1024)
                    }
                }
                guard let last = times.max(), let wall = Spread(usages.map(\.wallSeconds)),
                    let cpu = Spread(usages.map(\.cpuSeconds)), let rss = Spread(rssValues)
                else { throw BenchError.noRuns }
                let serial = single * Double(count)
                let row = ScaleFigureRow(
                    devices: count, adapters: shared ? "one adapter" : "one adapter each", modelledSeconds: last,
                    serialSeconds: serial, speedUp: serial / last,
                    slowestDeviceBytesPerSecond: Double(kilobytes * 1000) / last,
                    hostWallSeconds: wall, hostCPUSeconds: cpu, peakRSSMegabytes: rss)
                rows.append(row)
                progress("figure 4: \(count) devices, \(row.adapters): \(Spread.format(last, digits: 2)) s,"
                         + " speed-up \(Spread.format(row.speedUp, digits: 2)), RSS \(rss.formatted(digits: 1)) MB")
            }
        }
        return rows
    }
}
