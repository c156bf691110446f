import DFUCore

/// `dfu scan`: lists nearby devices that offer DFU, with address, name, RSSI and mode.
enum ScanCommand: Subcommand {
    static let name = "scan"
    static let abstract = "list nearby devices that offer DFU"
    static let synopsis = "[--scan-timeout SECONDS] [--all] [--adapter hciN] [--json]"
    static let discussion = """
        Scans for Bluetooth LE devices for --scan-timeout seconds. Devices that advertise a DFU service
        (Secure FE59, Legacy 1530, the experimental buttonless service, or the SMP service of
        nRF Connect SDK devices) are connected to, one after the other, to tell an application
        with a buttonless service from a bootloader, and an SMP server (mode smp) from both.
        With --all every device heard is listed; devices without a DFU service in their
        advertisement are not connected to, their mode shows as '-'.
        """
    static let examples: [(command: String, comment: String)] = [
        ("dfu scan", "DFU devices in range"),
        ("dfu scan --all --scan-timeout 10", "everything in range, scanning longer"),
        ("dfu scan --json | jq -r '.devices[] | select(.mode == \"secure-bootloader\") | .address'", "bootloaders waiting for an update"),
    ]
    /// How long `dfu scan` listens when `--scan-timeout` is not given: a listing, not the search for one
    /// device (that is `DFUOptions.scanTimeout`), so shorter.
    static let defaultScanTimeout: Duration = .seconds(5)

    static let options: [OptionSpec] = [
        .value("scan-timeout", short: "t", "SECONDS", aliases: ["timeout"], help: "how long to scan",
               default: OptionSpec.seconds(defaultScanTimeout)),
        .flag("all", help: "list every device, not only those advertising a DFU service"),
        .value("adapter", short: "a", "hciN", help: "Bluetooth adapter to use (default: BlueZ's default)"),
        .flag("json", help: "print one JSON object on standard output: {\"devices\": [...]}"),
        .flag("quiet", short: "q", help: "print only the list and errors (no 'no device found')"),
    ]

    /// The service UUIDs that mark a DFU device in an advertisement.
    static let dfuServices: Set<String> = {
        let uuids = DFUServiceUUIDs()
        return [uuids.secureService, uuids.legacyService, uuids.experimentalButtonlessService, uuids.smpService]
    }()

    struct Row: Encodable {
        let address: String
        let name: String?
        let rssi: Int?
        let mode: DeviceMode?
        let services: [String]
    }

    static let exitCodes: [ExitCode] = [.success, .usage, .unavailable, .outputFailed, .unsafeSetup, .software, .systemError, .interrupted]

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        _ = try arguments.positionals(named: [])
        let timeout = try UploadSettings.seconds(arguments, "scan-timeout") ?? defaultScanTimeout
        let adapter = arguments.value("adapter")
        if let adapter, !UploadSettings.isAdapterName(adapter) {
            throw UsageError("option --adapter: '\(adapter)' is not an adapter name like hci0", command: name)
        }
        let heard: [Advertisement]
        do {
            heard = try await context.transports.scan(adapter, timeout)
        } catch where context.interrupts.isInterrupted {
            heard = []
        }
        var rows: [Row] = []
        for advertisement in heard.sorted(by: { ($0.rssi ?? Int.min) > ($1.rssi ?? Int.min) }) {
            let isDFU = advertisement.serviceUUIDs.contains { dfuServices.contains($0.uppercased()) }
            guard isDFU || arguments.flag("all") else { continue }
            var mode: DeviceMode?
            // After Ctrl-C the devices heard are still listed, without connecting to them.
            if isDFU && !context.interrupts.isInterrupted {
                mode = try? await DeviceMode.probe(advertisement.address, adapter: adapter, timeout: timeout, context: context)
            }
            rows.append(Row(address: advertisement.address.description, name: advertisement.name, rssi: advertisement.rssi,
                            mode: mode, services: advertisement.serviceUUIDs))
        }
        let interrupted = context.interrupts.isInterrupted
        if arguments.flag("json") {
            context.writeOutput(try JSONLine.encoded(["devices": rows]))
        } else if rows.isEmpty {
            if !interrupted && !arguments.flag("quiet") {
                context.writeError("no \(arguments.flag("all") ? "" : "DFU ")device found within \(ProgressText.seconds(timeout))\n")
            }
        } else {
            context.writeOutput(table(rows))
        }
        if interrupted {
            var line = "dfu: scan interrupted; \(rows.count) device\(rows.count == 1 ? "" : "s") heard so far"
            if rows.contains(where: { $0.mode == nil && dfuServices.contains(where: $0.services.contains) }) {
                line += ", those without a mode were not connected to"
            }
            context.writeError(line + "\n")
            return .interrupted
        }
        return .success
    }

    /// The table on a terminal: names are escaped (anything in radio range can advertise one).
    static func table(_ rows: [Row]) -> String {
        var text = "ADDRESS            RSSI  NAME                  MODE\n"
        for row in rows {
            let rssi = row.rssi.map(String.init) ?? "-"
            text += row.address + "  " + String(repeating: " ", count: max(0, 4 - rssi.count)) + rssi + "  "
            text += TerminalText.escaped(row.name ?? "-").padding(20) + "  " + (row.mode?.description ?? "-") + "\n"
        }
        return text
    }
}
