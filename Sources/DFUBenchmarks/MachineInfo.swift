import Foundation

/// The machine and the versions a benchmark ran with.
public struct MachineInfo: Sendable, Hashable, Codable {
    /// Online processors.
    public var cores: Int
    /// CPU model from /proc/cpuinfo.
    public var cpuModel: String
    /// Kernel release.
    public var kernel: String
    /// First line of `swift --version`.
    public var swift: String
    /// dfu's own version.
    public var dfu: String
    /// `bluetoothd --version`, or "not installed".
    public var bluez: String
    /// When the benchmark started (ISO 8601, UTC).
    public var date: String

    /// Reads everything from the running system; `swift` is the toolchain's driver.
    public static func current(swift: String, dfuVersion: String) -> MachineInfo {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let kernel = ((try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)) ?? "unknown")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let swiftVersion = firstLine(of: [swift, "--version"]) ?? "unknown"
        let bluetoothd = ["/usr/libexec/bluetooth/bluetoothd", "/usr/sbin/bluetoothd", "/usr/lib/bluetooth/bluetoothd"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        let bluez = bluetoothd.flatMap { firstLine(of: [$0, "--version"]) }.map { "bluetoothd \($0)" } ?? "not installed"
        let formatter = ISO8601DateFormatter()
        return MachineInfo(cores: ProcessInfo.processInfo.activeProcessorCount, cpuModel: model, kernel: kernel,
                           swift: swiftVersion, dfu: dfuVersion, bluez: bluez, date: formatter.string(from: Date()))
    }

    /// The first line a command prints (stdout and stderr), or nil when it cannot run.
    static func firstLine(of command: [String]) -> String? {
        firstLines(of: command).flatMap { $0.split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// Everything a command prints (stdout and stderr), or nil when it cannot run.
    static func firstLines(of command: [String]) -> String? {
        guard let executable = command.first else { return nil }
        let process = Process()
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = Array(command.dropFirst())
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = command
        }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
