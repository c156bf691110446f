import Foundation
/// What a finished process used, as `dfu-bench-rusage` reports it from wait4(2): CPU in
/// microseconds, peak RSS, and the context switches it made.
public struct ProcessUsageReport: Sendable, Hashable, Codable {
    /// Exit status (128 + signal when killed).
    public var status: Int32
    /// Wall clock seconds from start to exit.
    public var wallSeconds: Double
    /// User CPU seconds.
    public var userSeconds: Double
    /// System CPU seconds.
    public var systemSeconds: Double
    /// Peak resident set size, KB.
    public var peakRSSKilobytes: Int
    /// Voluntary context switches (the process waited: a futex, poll, read…).
    public var voluntarySwitches: Int
    /// Involuntary context switches (preempted).
    public var involuntarySwitches: Int

    /// User plus system CPU seconds.
    public var cpuSeconds: Double { userSeconds + systemSeconds }

    /// Runs `command` under `dfu-bench-rusage` (at `rusage`) with its output discarded and returns what it used;
    /// throws when it failed or the report cannot be read.
    static func measuring(_ command: [String], under rusage: String) throws -> ProcessUsageReport {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: rusage)
        process.arguments = command
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let report = ProcessUsageReport(parsing: text), report.status == 0 else {
            throw BenchError.child("\(command.joined(separator: " ")) under dfu-bench-rusage: \(text.suffix(300))")
        }
        return report
    }
    /// Every context switch.
    public var contextSwitches: Int { voluntarySwitches + involuntarySwitches }

    /// Reads the `dfu-bench-rusage:` line out of `text` (other lines are ignored); nil when it is
    /// missing or lacks a figure.
    public init?(parsing text: String) {
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("dfu-bench-rusage: status=") }) else {
            return nil
        }
        var fields: [Substring: Int] = [:]
        for field in line.dropFirst("dfu-bench-rusage: ".count).split(separator: " ") {
            guard let equals = field.firstIndex(of: "="), let value = Int(field[field.index(after: equals)...]) else { continue }
            fields[field[..<equals]] = value
        }
        guard let status = fields["status"], let wall = fields["wall_us"], let user = fields["user_us"],
            let system = fields["sys_us"], let rss = fields["maxrss_kb"], let voluntary = fields["nvcsw"],
            let involuntary = fields["nivcsw"]
        else { return nil }
        self.status = Int32(clamping: status)
        wallSeconds = Double(wall) / 1e6
        userSeconds = Double(user) / 1e6
        systemSeconds = Double(system) / 1e6
        peakRSSKilobytes = rss
        voluntarySwitches = voluntary
        involuntarySwitches = involuntary
    }
}
