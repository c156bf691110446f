import DFUCore
public import DFUSimStandIn
import DFUSimulator

/// The parsed command line of `dfu-sim`.
public struct DFUSimArguments: Sendable {
    /// What to do.
    public enum Mode: Sendable, Equatable {
        /// Serve while COMMAND runs, then exit with its status.
        case run(command: [String])
        /// Print the bus address and serve until killed.
        case serve
        /// Print the usage.
        case help
    }

    /// What to do.
    public var mode: Mode
    /// The devices, link and faults.
    public var configuration = StandInConfiguration()
    /// Where to write the JSON report at the end.
    public var reportPath: String?

    /// The usage text.
    public static let usage = """
        usage: dfu-sim run [--device SPEC]... [--link SPEC] [--bluetoothd SPEC] [--fault SPEC]... [--report FILE] -- COMMAND [ARG]...
               dfu-sim serve [--device SPEC]... [--link SPEC] [--bluetoothd SPEC] [--fault SPEC]... [--report FILE]
               dfu-sim peripheral --adapter hciN --device SPEC ...   (a GATT peripheral on the real bluetoothd; --help)
               dfu-sim image --size BYTES --bin FILE --dat FILE      (a synthetic image and its init packet; --help)

        Serves bluetoothd's org.bluez D-Bus API (adapter hci0) on a private dbus-daemon from simulated
        nRF5 and nRF Connect SDK (SMP) devices. `run` starts COMMAND with DBUS_SYSTEM_BUS_ADDRESS set to that bus and exits with
        its status; `serve` prints the bus address and serves until SIGINT or SIGTERM (SIGHUP restarts
        the stand-in as bluetoothd restarting: it leaves org.bluez, drops every link and object, returns).

          --device KIND[,address=AA:BB:CC:DD:EE:FF][,name=NAME][,key=value...]
                KIND: secure, legacy, buttonless, buttonless-bonded, buttonless-experimental, legacy-app,
                      smp, smp-auth, smp-nrf5340 (Zephyr's SMP server above MCUboot; smp-auth needs a paired
                      link; smp-nrf5340 has image 0 for the application core, image 1 for the network core),
                      smp-loader, smp-loader-bm (MCUboot's firmware loader mode: the nRF Connect SDK's loader,
                      the Bare Metal option's at the address with bit 0 inverted; docs/dfu-sim.md has their keys)
                keys: hw_version, sd_id, sd_id_after, app_version, bl_version, signature=required,
                      public_key=FILE, legacy_version=MAJOR.MINOR|none (none: no DFU Version characteristic),
                      bl_extra_service=UUID (a Legacy bootloader also serves it), max_image, rssi,
                      service_changed=yes, connect_delay_ms=N (each Connect takes N ms; Disconnect cancels it),
                      uuid.ROLE=UUID (custom UUID for ROLE, one of dfu upload --uuid's roles: secure-service,
                      secure-control-point, secure-packet, buttonless-without-bonds, legacy-service, ...)
                SMP keys: buf_size, buf_count, reassembly=yes|no, erase_progressively=yes|no,
                      image_check=yes|no, mcumgr_params=yes|no, slot_info=yes|no, reset_ms, slot_size,
                      page_size,
                      version=MAJOR.MINOR.REVISION[.BUILD], public_key=FILE (MCUboot's key),
                      duplicate_response=N[:M...], unanswered_response=N[:M...], reset_after_upload_bytes=N,
                      hostile: report_buf_size=N, report_buf_count=N (any int64), lying_offset=yes, flood=N
                      (with address, name, rssi, service_changed, connect_delay_ms)
          --link KEY=VALUE[,...]   mtu, interval_ms, phy=1m|2m, packets_per_event, connect_timeout_ms,
                                   resolve_ms, discovery_ms, smp_paced=yes (SMP answers at the
                                   modelled link's pace, for throughput figures)
          --bluetoothd KEY=VALUE[,...]
                                   the bluetoothd played: version=5.66 (default), 5.55, 5.80 or 5.87, cache=always
                                   (default), yes or no (main.conf [GATT] Cache), temporary_timeout_s=N
                                   (main.conf TemporaryTimeout, default 30; 0 keeps devices)
          --fault SPEC             drop-packet=N[:M...], corrupt-packet=N[:M...], disconnect-after-bytes=N,
                                   disconnect-at=OPCODE[:OCCURRENCE], fail-connections=N, fail-pairing,
                                   response-delay-ms=N, no-stale-cache, drop-response=N[:M...],
                                   adapter-vanish-after-bytes=N, restart-after-bytes=N, quit-after-bytes=N,
                                   power-off-after-bytes=N, late-response=N:MS, late-announcement-ms=N,
                                   late-notify-release-ms=N, services-resolved-first
          --report FILE            write the devices' flash (SMP: their slots) and statistics as JSON at the end
          --adapter-off            start with the adapter powered off
          --no-adapter             serve org.bluez without any adapter

        """

    /// Parses the arguments after the program name.
    public init(_ arguments: [String]) throws(StandInSpecError) {
        guard let first = arguments.first else { throw StandInSpecError("missing command (run or serve)") }
        var rest = Array(arguments.dropFirst())
        var command: [String]?
        if let separator = rest.firstIndex(of: "--") {
            command = Array(rest[(separator + 1)...])
            rest = Array(rest[..<separator])
        }
        switch first {
        case "-h", "--help", "help":
            mode = .help
            return
        case "run":
            guard let command, !command.isEmpty else { throw StandInSpecError("run needs -- COMMAND [ARG]...") }
            mode = .run(command: command)
        case "serve":
            guard command == nil else { throw StandInSpecError("serve takes no COMMAND") }
            mode = .serve
        default:
            throw StandInSpecError("unknown command '\(first)' (run or serve)")
        }
        var devices: [String] = []
        var index = 0
        func value(of option: String) throws(StandInSpecError) -> String {
            index += 1
            guard index < rest.count else { throw StandInSpecError("\(option) needs a value") }
            return rest[index]
        }
        while index < rest.count {
            var option = rest[index]
            var inline: String?
            if option.hasPrefix("--"), let equals = option.firstIndex(of: "=") {
                inline = String(option[option.index(after: equals)...])
                option = String(option[..<equals])
            }
            let takesValue = ["--device", "--link", "--bluetoothd", "--fault", "--report"].contains(option)
            var argument = ""
            if takesValue {
                if let inline { argument = inline } else { argument = try value(of: option) }
            } else if inline != nil {
                throw StandInSpecError("\(option) takes no value")
            }
            switch option {
            case "--device": devices.append(argument)
            case "--link": configuration.link = try StandInLink(parsing: argument)
            case "--bluetoothd": configuration.host = try StandInHost(parsing: argument)
            case "--fault": try configuration.faults.add(parsing: argument)
            case "--report": reportPath = argument
            case "--adapter-off": configuration.powered = false
            case "--no-adapter": configuration.hasAdapter = false
            case "-h", "--help":
                mode = .help
                return
            default: throw StandInSpecError("unknown option '\(option)'")
            }
            index += 1
        }
        configuration.devices = try devices.enumerated().map { (entry) throws(StandInSpecError) in
            try SimulatedDeviceSpec(parsing: entry.element, index: entry.offset)
        }
        var seen: Set<String> = []
        for device in configuration.devices {
            let address = device.profile.address.description
            guard seen.insert(address).inserted else {
                throw StandInSpecError("two devices have the address \(address)")
            }
        }
    }
}
