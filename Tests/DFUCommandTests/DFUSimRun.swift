import Foundation
import TestSupport
import Testing

/// One run of `dfu-sim run [--device SPEC]... [--fault SPEC]... --report FILE -- dfu ARGUMENTS`:
/// the built `dfu` against bluetoothd's stand-in on a private bus, with what the simulated
/// devices ended up with.
struct DFUSimRun: @unchecked Sendable {  // immutable; `report` is a parsed JSON document
    let status: Int32
    let output: String
    let error: String
    /// The `--report` document: `{"devices": [{"address", "kind", "images": {part: {size, crc32}}, "stats"}]}`.
    let report: [String: Any]
    /// Wall-clock time of the whole run.
    let seconds: Double

    /// The built `dfu-sim`, next to `dfu`.
    static var executable: URL { TestData.dfuExecutable.deletingLastPathComponent().appendingPathComponent("dfu-sim") }

    /// Whether the built tools and a `dbus-daemon` are there.
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: executable.path)
            && FileManager.default.isExecutableFile(atPath: TestData.dfuExecutable.path)
            && ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The simulator's lines on standard error (dbus-daemon's own notices) are dropped from `error`.
    static func run(devices: [String], faults: [String] = [], simulator: [String] = [], _ arguments: [String])
        async throws -> DFUSimRun
    {
        try await run(devices: devices, faults: faults, simulator: simulator, command: [TestData.dfuExecutable.path] + arguments)
    }

    /// Runs `dfu ARGUMENTS` under `dfu-sim run` as ``run(devices:faults:simulator:_:)`` does, and also returns how long the
    /// `dfu` process itself ran (bash's `time`, real seconds): what a bound on dfu's own timing must measure, since the whole
    /// run's ``seconds`` also counts dfu-sim starting its dbus-daemon and stopping, which a loaded machine stretches.
    static func timed(devices: [String], faults: [String] = [], _ arguments: [String]) async throws
        -> (run: DFUSimRun, dfuSeconds: Double)
    {
        let script = #"TIMEFORMAT='dfu-seconds %R'; time "$0" "$@""#
        let run = try await run(devices: devices, faults: faults, command: ["/bin/bash", "-c", script, TestData.dfuExecutable.path] + arguments)
        let line = run.error.split(separator: "\n").last { $0.hasPrefix("dfu-seconds ") }
        let seconds = try #require(line.flatMap { Double($0.dropFirst("dfu-seconds ".count)) }, "bash's time line: \(run.error)")
        return (run, seconds)
    }

    /// Runs any `command` under `dfu-sim run` (e.g. a shell running `dfu` twice against the same devices).
    /// The child is waited for on a thread of its own (``offThePool(_:)``), not on the shared pool.
    static func run(devices: [String], faults: [String] = [], simulator: [String] = [], command tool: [String])
        async throws -> DFUSimRun
    {
        try await offThePool { try runBlocking(devices: devices, faults: faults, simulator: simulator, command: tool) }
    }

    private static func runBlocking(devices: [String], faults: [String], simulator: [String], command tool: [String])
        throws -> DFUSimRun
    {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-sim-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: report) }
        var command = ["run"]
        for device in devices { command += ["--device", device] }
        for fault in faults { command += ["--fault", fault] }
        command += simulator + ["--report", report.path, "--"] + tool
        let process = Process()
        process.executableURL = executable
        process.arguments = command
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = nil
        environment["DFU_SIMULATE"] = nil
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let start = Date()
        try process.run()
        let errData = ReceivedData()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData.set(err.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(start)
        let error = String(decoding: errData.get(), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("dbus-daemon[") }.joined(separator: "\n")
        var document: [String: Any] = [:]
        if let data = try? Data(contentsOf: report),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
            document = object
        }
        return DFUSimRun(status: process.statusIfEnded ?? -1, output: String(decoding: outData, as: UTF8.self),
                         error: error, report: document, seconds: seconds)
    }

    /// A device of the report by address.
    func device(_ address: String) -> [String: Any]? {
        (report["devices"] as? [[String: Any]])?.first { $0["address"] as? String == address }
    }

    /// The size of an installed image (`application`, `softdevice`, `bootloader`) of a device.
    func imageSize(_ address: String, _ part: String) -> Int? {
        ((device(address)?["images"] as? [String: Any])?[part] as? [String: Any])?["size"] as? Int
    }

    /// The CRC-32 (8 lower-case hex digits) of an installed image of a device.
    func imageCRC(_ address: String, _ part: String) -> String? {
        ((device(address)?["images"] as? [String: Any])?[part] as? [String: Any])?["crc32"] as? String
    }

    /// A CRC-32 as the report spells it: 8 lower-case hex digits.
    static func crcHex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// The CRC-32 of each image in `package` by part type, as `dfu inspect --json` computes it from the zip.
    static func packageCRCs(_ package: String) async throws -> [String: String] {
        let run = await RecordedRun.dfu("inspect", "--json", package)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let parts = try #require(object["parts"] as? [[String: Any]])
        var crcs: [String: String] = [:]
        for part in parts {
            if let type = part["type"] as? String, let crc = part["bin_crc32"] as? String { crcs[type] = crc.lowercased() }
        }
        return crcs
    }

    /// A list statistic of a device (`data_object_waits_ms`); empty when absent.
    func list(_ address: String, _ name: String) -> [Int] {
        (device(address)?["stats"] as? [String: Any])?[name] as? [Int] ?? []
    }

    /// A statistic of a device (`connections`, `objects_executed`, `crc_failures`, …).
    func stat(_ address: String, _ name: String) -> Int? {
        (device(address)?["stats"] as? [String: Any])?[name] as? Int
    }
}

