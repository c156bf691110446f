import Foundation

/// Figure 7: `dfu upload` and a peer client side by side, in one run: nrfdfu (infsoft-locaware/nrfdfu over blzlib and
/// sd-bus, a single-threaded C client; built outside this repository, Benchmarks/README.md), given by `--peer-nrfdfu`.
///
/// Each client uploads a small (4 KB) and a large (500 KB) Secure DFU package, nrfutil's fixtures, to a fresh Secure
/// DFU bootloader served by `dfu-sim run` on a private dbus-daemon: `dfu upload` as it runs by default (packets through
/// an AcquireWrite socket), `dfu upload --prn 0` (the same without packet receipt notifications, as nrfdfu turns them
/// off, `dfu.c` `dfu_upgrade`, where `dfu`'s default of 12 adds a notification and an engine step to every 4 KB
/// object), `dfu upload --no-acquire` (packets by WriteValue, the D-Bus method nrfdfu uses for each), `dfu upload
/// --no-acquire --prn 0` (nrfdfu's exchange exactly) and nrfdfu;
/// each process runs under `dfu-bench-rusage`, so only
/// the client's own CPU and peak RSS are counted. From the two sizes, run by run: the CPU per MiB beyond every fixed
/// cost (the difference of CPU over the difference of MiB), the fixed cost (the small upload's CPU), and beside it the
/// start-up alone; the peak RSS, wall time and context switches of the large upload. Each as dfu's value, the peer's
/// and dfu/peer.
///
/// nrfdfu does not scan: blzlib connects to a device bluetoothd already knows (Device1.Connect), or else calls
/// Adapter1.ConnectDevice, which bluetoothd offers only with `--experimental` (the stand-in, like bluetoothd 5.66
/// without it, answers UnknownMethod). So `bluetoothctl --timeout 1 scan on` runs first and makes the device known, as
/// a user would; it runs under a `dfu-bench-rusage` of its own, so the upload's rows stay nrfdfu's alone and one more
/// row adds the scan's CPU to the small upload's: the fixed cost of the same work as `dfu`'s, which scans itself. Every
/// upload is checked in `dfu-sim run --report`: the device must end up with an application of the package's size.
public struct PeerClientFigure: Sendable {
    /// `dfu`.
    public var dfu: String
    /// `dfu-sim`.
    public var dfuSim: String
    /// `dfu-bench-rusage`, next to `dfu-sim`.
    public var rusage: String
    /// nrfdfu, when given.
    public var peerNrfdfu: String?
    /// Timed runs of each client and size after one warm-up.
    public var runs = 3
    /// Runs of each client's start-up after one warm-up.
    public var startupRuns = 11
    /// The small package (nrfutil 6.1.7, a 4096-byte application).
    public var smallPackage = "Tests/Fixtures/packages/secure-app-4096.zip"
    /// Its firmware bytes.
    public var smallBytes = 4096
    /// The large package (figure 2's, a 512000-byte application).
    public var largePackage = "Tests/Fixtures/packages/secure-app-512000.zip"
    /// Its firmware bytes.
    public var largeBytes = 512_000
    /// The simulated device: a Secure DFU bootloader with the SoftDevice the fixtures require.
    public var device = "secure,sd_id=0xB7"
    /// Its address.
    public var address = "C0:FF:EE:00:00:10"

    /// A figure with these executables; `dfu-bench-rusage` is looked for next to `dfu-sim`.
    public init(dfu: String, dfuSim: String, peerNrfdfu: String?) {
        self.dfu = dfu
        self.dfuSim = dfuSim
        self.peerNrfdfu = peerNrfdfu
        let directory = dfuSim.lastIndex(of: "/").map { String(dfuSim[...$0]) } ?? ""
        rusage = directory + "dfu-bench-rusage"
    }

    /// Why the figure cannot be measured here (not even `dfu`'s column), or nil when it can.
    public func missing() -> String? {
        let files = FileManager.default
        guard files.isExecutableFile(atPath: dfuSim) else { return "needs dfu-sim (\(dfuSim)) built" }
        guard files.isExecutableFile(atPath: rusage) else { return "needs dfu-bench-rusage (\(rusage)) built" }
        guard files.isExecutableFile(atPath: dfu) else { return "needs dfu (\(dfu)) built" }
        for package in [smallPackage, largePackage] where !files.fileExists(atPath: package) { return "needs \(package)" }
        return nil
    }

    /// One client as the figure runs it.
    struct Client {
        /// "dfu" or "nrfdfu".
        var name: String
        /// Its start-up command.
        var startup: [String]
        /// The upload command of `package`.
        var upload: @Sendable (_ package: String) -> [String]
        /// The command that makes the device known to bluetoothd before the upload (measured apart), none when the
        /// client finds it itself.
        var discovery: [String] = []
    }

    /// The options of `dfu`'s ways, in the figure's column order: as users run it (packets through AcquireWrite),
    /// `--prn 0` (the same without packet receipt notifications, as nrfdfu runs), `--no-acquire` (every packet a
    /// WriteValue call, as nrfdfu sends them) and `--no-acquire --prn 0` (the same calls, writes and notifications as
    /// nrfdfu's).
    static let dfuWays: [[String]] = [[], ["--prn", "0"], ["--no-acquire"], ["--no-acquire", "--prn", "0"]]

    /// `dfu upload PACKAGE -d ADDRESS OPTIONS...`, named by its command without the package.
    func dfuClient(_ options: [String]) -> Client {
        let (dfu, address) = (self.dfu, self.address)
        return Client(name: (["dfu"] + options).joined(separator: " "), startup: [dfu, "--version"],
                      upload: { [dfu, "upload", $0, "-d", address] + options })
    }

    /// `nrfdfu ble -a ADDRESS PACKAGE` (nrfdfu's main.c: the type first, the package last).
    static func nrfdfuClient(_ path: String, address: String) -> Client {
        Client(name: "nrfdfu", startup: [path, "ble", "--help"], upload: { [path, "ble", "-a", address, $0] },
               discovery: ["bluetoothctl", "--timeout", "1", "scan", "on"])
    }

    /// Measures `dfu` and the peer when given, run by run in turn (start-ups first, then both sizes of each client in
    /// every run), so that both see the same load; a peer that fails leaves its column saying why.
    public func run(progress: (String) -> Void = { _ in }) throws -> PeerClientFigureResult {
        var peerFailure: (path: String, reason: String)?
        // dfu's ways first; a failure of any ends the figure, the peer's only fills its column.
        var clients = Self.dfuWays.map(dfuClient)
        let peerIndex = clients.count
        if let path = peerNrfdfu {
            if FileManager.default.isExecutableFile(atPath: path) {
                clients.append(Self.nrfdfuClient(path, address: address))
            } else {
                peerFailure = (path, "not an executable file")
            }
        }
        var samples = [Samples](repeating: Samples(), count: clients.count)
        func attempt(_ index: Int, _ body: () throws -> Void) throws {
            guard index >= peerIndex else { return try body() }
            guard peerFailure == nil, let path = peerNrfdfu else { return }
            do { try body() } catch {
                peerFailure = (path, "\(error)")
                progress("figure 7: \(clients[index].name): \(error)")
            }
        }
        // One start-up figure for dfu: its ways start the same program.
        for (index, client) in clients.enumerated() where index == 0 || index >= peerIndex {
            try attempt(index) { samples[index].startupSeconds = try startupSeconds(client) }
        }
        for index in 1..<peerIndex { samples[index].startupSeconds = samples[0].startupSeconds }
        for run in 0...max(1, runs) {
            for (index, client) in clients.enumerated() {
                for (package, bytes) in [(smallPackage, smallBytes), (largePackage, largeBytes)] {
                    try attempt(index) {
                        let (report, discovery) = try uploadOnce(client, package: package, bytes: bytes)
                        if run > 0 {
                            if bytes == smallBytes {
                                samples[index].small.append(report)
                                if let discovery { samples[index].discoveries.append(discovery) }
                            } else {
                                samples[index].large.append(report)
                            }
                        }
                        progress("figure 7: \(client.name) \(bytes) bytes run \(run): \(Spread.format(report.wallSeconds, digits: 2)) s wall,"
                                 + " \(Spread.format(report.cpuSeconds * 1000, digits: 1)) ms CPU, \(report.peakRSSKilobytes) KB")
                    }
                }
            }
        }
        func cost(_ samples: Samples) -> UploadClientCost? {
            UploadClientCost(startupSeconds: samples.startupSeconds, small: samples.small, large: samples.large,
                             smallBytes: smallBytes, largeBytes: largeBytes, discoveries: samples.discoveries)
        }
        let dfuCosts = samples[..<peerIndex].compactMap(cost)
        guard dfuCosts.count == Self.dfuWays.count else { throw BenchError.noRuns }
        var peer = PeerClientFigureResult.Peer.notGiven
        if let peerFailure {
            peer = .failed(path: peerFailure.path, reason: peerFailure.reason)
        } else if let path = peerNrfdfu, samples.count > peerIndex {
            guard let peerCost = cost(samples[peerIndex]) else { throw BenchError.noRuns }
            peer = .measured(path: path, cost: peerCost)
        }
        return PeerClientFigureResult(dfu: dfuCosts[0], dfuWithoutPRN: dfuCosts[1], dfuWriteValue: dfuCosts[2],
                                      dfuWriteValueWithoutPRN: dfuCosts[3], peer: peer, smallBytes: smallBytes, largeBytes: largeBytes,
                                      device: device)
    }

    /// What one client's runs gave.
    struct Samples {
        var startupSeconds: [Double] = []
        var small: [ProcessUsageReport] = []
        var large: [ProcessUsageReport] = []
        /// The discovery run before each small upload, for a client that needs one.
        var discoveries: [ProcessUsageReport] = []
    }

    /// The CPU seconds of each of `startupRuns` start-ups of `client` after a warm-up.
    func startupSeconds(_ client: Client) throws -> [Double] {
        var seconds: [Double] = []
        for run in 0...startupRuns {
            let report = try ProcessUsageReport.measuring(client.startup, under: rusage)
            if run > 0 { seconds.append(report.cpuSeconds) }
        }
        return seconds
    }

    /// One upload of `package` (`bytes` of firmware) by `client` to a fresh device under `dfu-sim run`: what the client
    /// process used, and its discovery process when it needs one; throws unless both succeed and the device ends up
    /// with an application of that size.
    func uploadOnce(_ client: Client, package: String, bytes: Int) throws -> (upload: ProcessUsageReport, discovery: ProcessUsageReport?) {
        let deviceReport = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-bench-peer-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: deviceReport) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: dfuSim)
        // $0 = dfu-bench-rusage, $1 = the discovery command (its words split by the shell) or empty, then the client's
        // command. The discovery's own report comes first, marked.
        let script = #"discovery="$1"; shift; if [ -n "$discovery" ]; then "#
            + #""$0" $discovery 2>&1 >/dev/null | sed -n "s/^dfu-bench-rusage: /\#(Self.discoveryMark)&/p"; fi; "#
            + #"exec "$0" "$@" 2>&1"#
        process.arguments = ["run", "--report", deviceReport.path, "--device", "\(device),address=\(address)", "--", "/bin/sh", "-c", script, rusage,
                             client.discovery.joined(separator: " ")] + client.upload(package)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let command = client.upload(package).joined(separator: " ")
        guard process.terminationStatus == 0 else {
            throw BenchError.child("dfu-sim run -- \(command) exited with \(process.terminationStatus): \(text.suffix(400))")
        }
        let (uploadText, discoveryText) = Self.separatingDiscovery(text)
        guard let report = ProcessUsageReport(parsing: uploadText), report.status == 0 else {
            throw BenchError.child("no dfu-bench-rusage report: \(text.suffix(300))")
        }
        var discovery: ProcessUsageReport?
        if !client.discovery.isEmpty {
            guard let measured = ProcessUsageReport(parsing: discoveryText), measured.status == 0 else {
                throw BenchError.child("\(client.discovery.joined(separator: " ")) failed or gave no report: \(text.suffix(300))")
            }
            discovery = measured
        }
        let installed = Self.applicationSize(inDeviceReport: (try? Data(contentsOf: deviceReport)) ?? Data())
        guard installed == bytes else {
            throw BenchError.child("\(command) exited 0 but the device holds no \(bytes)-byte application (dfu-sim --report: \(installed.map(String.init) ?? "none"))")
        }
        return (report, discovery)
    }

    /// What marks the discovery's `dfu-bench-rusage` line in an upload's output.
    static let discoveryMark = "discovery: "

    /// An upload's output without the discovery's marked lines, and those lines unmarked.
    static func separatingDiscovery(_ text: String) -> (upload: String, discovery: String) {
        var upload: [Substring] = []
        var discovery: [Substring] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix(discoveryMark) { discovery.append(line.dropFirst(discoveryMark.count)) } else { upload.append(line) }
        }
        return (upload.joined(separator: "\n"), discovery.joined(separator: "\n"))
    }

    /// The size of the first device's application in a `dfu-sim --report` file (`devices[0].images.application.size`).
    static func applicationSize(inDeviceReport data: Data) -> Int? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let devices = object["devices"] as? [[String: Any]], let images = devices.first?["images"] as? [String: Any],
            let application = images["application"] as? [String: Any]
        else { return nil }
        return application["size"] as? Int
    }

    /// dfu/peer, e.g. "0.60×"; "–" without a peer value or when it is not positive.
    static func ratio(_ dfu: Double, _ peer: Double?) -> String {
        guard let peer, peer > 0 else { return "–" }
        return Spread.format(dfu / peer, digits: 2) + "×"
    }

    /// The table `make bench` prints for `result`.
    static func lines(_ result: PeerClientFigureResult?, in table: BenchTable) -> [String] {
        guard let result else { return [] }
        let absent: String
        switch result.peer {
        case .notGiven: absent = "not given"
        case .failed: absent = "failed"
        case .measured: absent = "–"
        }
        let peer = result.peerCost
        typealias Metric = (name: String, value: (UploadClientCost) -> Spread, digits: Int)
        let metrics: [Metric] = [
            ("CPU per MiB beyond start-up (\(result.largeBytes) − \(result.smallBytes) bytes), ms/MiB", \.cpuPerMebibyteMilliseconds, 0),
            ("fixed cost: CPU of the \(result.smallBytes)-byte upload, ms", \.fixedCostMilliseconds, 1),
            ("the same with the discovery it needs first (nrfdfu: `bluetoothctl --timeout 1 scan on`), ms",
             { $0.fixedCostWithDiscoveryMilliseconds ?? $0.fixedCostMilliseconds }, 1),
            ("start-up alone: CPU of `dfu --version` / `nrfdfu ble --help`, ms", \.startupMilliseconds, 1),
            ("peak RSS of the \(result.largeBytes)-byte upload, MB", \.peakRSSMegabytes, 1),
            ("wall of the \(result.largeBytes)-byte upload, s", \.largeUploadWallSeconds, 2),
            ("context switches of the \(result.largeBytes)-byte upload", \.largeUploadContextSwitches, 0),
        ]
        var lines = ["", "Figure 7: `dfu` and a peer client side by side (Secure DFU through dfu-sim, `--device \(result.device)`;"
                     + " the client process under dfu-bench-rusage; median (min–max) of the timed runs)"]
        let ways = [result.dfuWithoutPRN, result.dfuWriteValue, result.dfuWriteValueWithoutPRN]
        lines += table.render(header: ["", "`dfu upload`", "`--prn 0`", "`--no-acquire`", "`--no-acquire --prn 0`", "nrfdfu", "dfu/peer",
                                       "--prn 0/peer", "--no-acquire/peer", "--no-acquire --prn 0/peer"],
                              rows: metrics.map { metric in
            let dfu = metric.value(result.dfu)
            let other = peer.map(metric.value)
            let byWriteValue = ways.map { $0.map(metric.value) }
            return [metric.name, dfu.formatted(digits: metric.digits)]
                + byWriteValue.map { $0?.formatted(digits: metric.digits) ?? "–" }
                + [other?.formatted(digits: metric.digits) ?? absent, ratio(dfu.median, other?.median)]
                + byWriteValue.map { $0.map { ratio($0.median, other?.median) } ?? "–" }
        })
        switch result.peer {
        case .notGiven:
            lines.append("peer: not given (`make bench PEER_NRFDFU=/path/to/nrfdfu`, or `dfu-bench --peer-nrfdfu PATH`)")
        case .failed(let path, let reason):
            lines.append("peer: nrfdfu at \(path) not measured: " + reason.prefix(300).split(whereSeparator: \.isNewline).joined(separator: " "))
        case .measured(let path, _):
            lines.append("peer: nrfdfu at \(path) (packet receipt notifications off, as `--prn 0`; `dfu`'s default is 12);"
                         + " wall is no radio's speed: the stand-in answers as fast as the host runs")
        }
        return lines
    }
}
