import DFUCore
import DFUSimStandIn
import Foundation
import Glibc
import TestSupport
import Testing

/// The `dfu-sim` executable end to end: exit statuses, the report, signals, and BlueZ's own
/// `bluetoothctl` and `busctl` against it.
@Suite(
    .serialized, .enabled(if: DFUSimProcess.isBuilt && dbusDaemonInstalled, "needs the built dfu-sim and dbus-daemon"))
struct DFUSimExecutableTests {
    @Test(arguments: [0, 3, 42])
    func runExitsWithTheCommandsStatus(status: Int) async throws {
        let outcome = try await DFUSimProcess.run(["run", "--device", "secure", "--", "sh", "-c", "exit \(status)"])
        #expect(outcome.status == Int32(status))
    }

    @Test func runGivesTheCommandTheBusAddress() async throws {
        let outcome = try await DFUSimProcess.run(["run", "--", "sh", "-c", "echo \"$DBUS_SYSTEM_BUS_ADDRESS\""])
        #expect(outcome.status == 0)
        #expect(outcome.output.hasPrefix("unix:path="))
    }

    @Test(arguments: [
        (["run", "--device", "nonsense", "--", "true"], "unknown device kind 'nonsense'"),
        (["run", "--device", "secure"], "run needs -- COMMAND"),
        (["serve", "--link", "mtu=9"], "mtu=9 must be 23 to 517"),
        (["run", "--fault", "explode", "--", "true"], "unknown fault 'explode'"),
        (["run", "--device", "secure,address=zz", "--", "true"], "address=zz is not AA:BB:CC:DD:EE:FF"),
        (["launch"], "unknown command 'launch'"),
    ])
    func usageErrorsExitWith64AndSayWhatIsWrong(arguments: [String], message: String) async throws {
        let outcome = try await DFUSimProcess.run(arguments)
        #expect(outcome.status == 64)
        #expect(outcome.error.contains(message), "\(outcome.error)")
    }

    @Test func helpDescribesTheInterface() async throws {
        let outcome = try await DFUSimProcess.run(["--help"])
        #expect(outcome.status == 0)
        #expect(outcome.output.contains("dfu-sim run [--device SPEC]..."))
        #expect(outcome.output.contains("buttonless-experimental"))
        #expect(outcome.output.contains("smp, smp-auth, smp-nrf5340"))
        for key in ["uuid.ROLE=UUID", "connect_delay_ms=N", "bl_extra_service=UUID", "legacy_version=MAJOR.MINOR|none"] {
            #expect(outcome.output.contains(key), "the device keys are listed: \(key)")
        }
    }

    @Test(.enabled(if: ToolRun.isInstalled("/usr/bin/busctl"), "needs busctl (Debian package systemd)"))
    func noAdapterServesOrgBluezWithoutHci0() async throws {
        let outcome = try await DFUSimProcess.run([
            "run", "--no-adapter", "--", "sh", "-c", "busctl --system tree --list org.bluez",
        ])
        #expect(outcome.status == 0)
        #expect(outcome.output.contains("/org/bluez\n"))
        #expect(!outcome.output.contains("/org/bluez/hci0"))
    }

    @Test func reportDescribesEveryDeviceAsJSON() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-sim-report-\(getpid()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let outcome = try await DFUSimProcess.run([
            "run", "--device", "secure,address=C0:00:00:00:00:01", "--device", "legacy-app", "--report", file.path,
            "--", "true",
        ])
        #expect(outcome.status == 0)
        let data = try Data(contentsOf: file)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let devices = try #require(object["devices"] as? [[String: Any]])
        #expect(devices.count == 2)
        #expect(devices.first?["address"] as? String == "C0:00:00:00:00:01")
        #expect(devices.first?["kind"] as? String == "secure")
        #expect(devices.last?["kind"] as? String == "legacy-app")
        let stats = try #require(devices.first?["stats"] as? [String: Any])
        #expect(
            Set(stats.keys) == ["connections", "objects_executed", "crc_failures", "dropped_packets", "modelled_ms",
                                "acquire_write", "acquire_notify", "write_value_commands", "write_value_commands_answered", "start_notify",
                                "transfers_abandoned", "data_object_waits_ms"])
        #expect(devices.first?["violations"] as? [String] == [])
        let images = try #require(devices.first?["images"] as? [String: [String: Any]])
        // The factory application: one byte 0xA5.
        #expect(images["application"]?["size"] as? Int == 1)
        #expect(images["application"]?["crc32"] as? String == StandInReport.Image(bytes: [0xA5]).crc32)
        let crc = try #require(images["application"]?["crc32"] as? String)
        #expect(crc.count == 8 && crc == crc.lowercased())
    }

    /// The SMP kinds' report: per device its occupied slots (image, slot, version, hash as the image list shows
    /// it, size, flags) and the SMP statistics beside the other keys; an echo written with busctl is counted.
    @Test(
        .enabled(if: ToolRun.isInstalled("/usr/bin/busctl"), "needs busctl (Debian package systemd)"),
        .enabled(if: ToolRun.isInstalled("/usr/bin/bluetoothctl"), "needs bluetoothctl (Debian package bluez)"))
    func reportGivesTheSlotsAndSMPStatisticsOfSMPDevices() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-sim-smp-report-\(getpid()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let echo = try SMPRequest.echo("hi").frame(sequence: 0).bytes
        let device = "/org/bluez/hci0/dev_C0_FF_EE_00_00_10"
        let script = """
            bluetoothctl --timeout 1 scan on >/dev/null
            busctl --system call org.bluez \(device) org.bluez.Device1 Connect
            for i in $(seq 100); do busctl --system get-property org.bluez \(device) org.bluez.Device1 ServicesResolved | grep -q true && break; sleep 0.05; done
            busctl --system call org.bluez \(device)/service000e/char000f org.bluez.GattCharacteristic1 StartNotify
            busctl --system call org.bluez \(device)/service000e/char000f org.bluez.GattCharacteristic1 WriteValue \
                'aya{sv}' \(echo.count) \(echo.map(String.init).joined(separator: " ")) 1 type s command
            sleep 0.2
            """
        let outcome = try await DFUSimProcess.run([
            "run", "--device", "smp", "--device", "smp-nrf5340,version=1.2.3.4", "--report", file.path, "--",
            "sh", "-c", script,
        ])
        #expect(outcome.status == 0, "\(outcome.error)")
        let data = try Data(contentsOf: file)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let devices = try #require(object["devices"] as? [[String: Any]])
        #expect(devices.map { $0["kind"] as? String } == ["smp", "smp-nrf5340"])
        let stats = try #require(devices.first?["stats"] as? [String: Any])
        for key in ["smp_requests", "smp_max_in_flight", "smp_retransmissions", "smp_resets", "connections"] {
            #expect(stats[key] is Int, "\(key)")
        }
        #expect(stats["smp_requests"] as? Int == 1)
        #expect(stats["smp_max_in_flight"] as? Int == 1)
        #expect(stats["smp_resets"] as? Int == 0)
        let slots = try #require(devices.first?["slots"] as? [[String: Any]])
        #expect(slots.count == 1)
        let slot = try #require(slots.first)
        #expect(
            Set(slot.keys) == ["image", "slot", "version", "hash", "size", "active", "pending", "confirmed", "permanent"])
        #expect(slot["image"] as? Int == 0)
        #expect(slot["slot"] as? Int == 0)
        #expect(slot["version"] as? String == "1.0.0")
        let hash = try #require(slot["hash"] as? String)
        #expect(hash.count == 64 && hash == hash.lowercased())
        #expect(slot["active"] as? Bool == true)
        #expect(slot["confirmed"] as? Bool == true)
        #expect(slot["pending"] as? Bool == false)
        #expect(slot["permanent"] as? Bool == false)
        #expect((slot["size"] as? Int ?? 0) > 2048)
        let dual = try #require(devices.last?["slots"] as? [[String: Any]])
        #expect(dual.map { $0["image"] as? Int } == [0, 1])
        #expect(dual.map { $0["version"] as? String } == ["1.2.3.4", "1.2.3.4"])
    }

    @Test func sigtermStopsTheCommandAndEverythingDfuSimStarted() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-sim-term-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pidFile = directory.appendingPathComponent("child.pid").path
        let process = Process()
        process.executableURL = DFUSimProcess.executable
        process.arguments = ["run", "--device", "secure", "--", "sh", "-c", "echo $$ > \(pidFile); exec sleep 30"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let deadline = ContinuousClock.now + .seconds(10)
        var child: Int32?
        while child == nil, ContinuousClock.now < deadline {
            child = (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap {
                Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        let pid = try #require(child)
        let children = childProcesses(of: process.processIdentifier)
        #expect(children.count == 2, "dbus-daemon's keeper and the command: \(children)")
        let daemons = children + children.flatMap { childProcesses(of: $0) }
        #expect(daemons.count == 3, "the keeper, its dbus-daemon and the command: \(daemons)")
        kill(process.processIdentifier, SIGTERM)
        #expect(await process.status(endingWithin: .seconds(10)) == 128 + SIGTERM)
        #expect(!DFUSimProcess.isAlive(pid))
        for daemon in daemons { #expect(!DFUSimProcess.isAlive(daemon)) }
    }

    @Test func dfuSimKilledWithSigkillTakesItsDaemonAndItsFolderWithIt() async throws {
        // SIGKILL runs no handler: only the daemon's keeper, whose standard input closes with dfu-sim, can end it.
        let (process, line) = try await DFUSimProcess.serve(["--device", "secure"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // unix:path=/tmp/dfu-bus-XXXXXX/bus,guid=…
        let socket = try #require(line.split(separator: ",").first.map { String($0.dropFirst("unix:path=".count)) })
        let folder = (socket as NSString).deletingLastPathComponent
        #expect(folder.contains("/dfu-bus-"), "\(line)")
        let daemons = Self.daemons(withArgument: "--config-file=\(folder)/bus.conf")
        #expect(daemons.count == 1, "dfu-sim's dbus-daemon: \(daemons)")
        kill(process.processIdentifier, SIGKILL)
        try #require(await process.status(endingWithin: .seconds(10)) != nil)
        let deadline = ContinuousClock.now + .seconds(10)
        while FileManager.default.fileExists(atPath: folder), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!FileManager.default.fileExists(atPath: folder), "\(folder) was left behind")
        for daemon in daemons { #expect(!DFUSimProcess.isAlive(daemon), "dbus-daemon \(daemon) outlived dfu-sim") }
    }

    /// The dbus-daemon processes with `argument` among their command-line arguments, from /proc
    /// (not the keeper, a shell that holds the same arguments).
    static func daemons(withArgument argument: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return arguments.first?.hasSuffix("/dbus-daemon") == true && arguments.contains(argument)
        }
    }

    /// `run` waits for its command's end and for signals as events: an idle second costs it a handful of
    /// context switches over all its threads, where looking every 5 ms cost about a thousand.
    @Test func runWaitsForItsCommandWithoutWakingUp() async throws {
        let process = Process()
        process.executableURL = DFUSimProcess.executable
        process.arguments = ["run", "--device", "secure", "--", "sleep", "30"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGTERM) } }
        // Past start-up (the bus, the stand-in, the command's start): then nothing happens for a second.
        try await Task.sleep(for: .milliseconds(800))
        let before = Self.contextSwitches(of: process.processIdentifier)
        try await Task.sleep(for: .seconds(1))
        let after = Self.contextSwitches(of: process.processIdentifier)
        #expect(after - before < 50, "dfu-sim run switched \(after - before) times in an idle second")
        kill(process.processIdentifier, SIGTERM)
        #expect(await process.status(endingWithin: .seconds(10)) == 128 + SIGTERM,
                "the command ended by the SIGTERM dfu-sim forwarded")
    }

    /// Voluntary and involuntary context switches of every thread of `pid` so far (/proc/PID/task/*/status).
    static func contextSwitches(of pid: Int32) -> Int {
        let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return threads.reduce(0) { sum, thread in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(thread)/status", encoding: .utf8)) ?? ""
            return sum + status.split(separator: "\n").filter { $0.contains("ctxt_switches:") }
                .compactMap { Int($0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") }.reduce(0, +)
        }
    }

    @Test func servePrintsTheBusAddressAndStopsOnSigint() async throws {
        let (process, line) = try await DFUSimProcess.serve(["--device", "buttonless"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        #expect(line.hasPrefix("unix:path="))
        if ToolRun.isInstalled("/usr/bin/busctl") {
            let tree = try await ToolRun.run("/usr/bin/busctl", ["--address=" + line, "tree", "org.bluez"])
            #expect(tree.output.contains("/org/bluez/hci0"))
        }
        kill(process.processIdentifier, SIGINT)
        #expect(await process.status(endingWithin: .seconds(10)) == 0)
    }

    @Test(.enabled(if: ToolRun.isInstalled("/usr/bin/bluetoothctl"), "needs bluetoothctl (Debian package bluez)"))
    func bluetoothctlListsScansConnectsAndShowsTheServices() async throws {
        // bluetoothctl's connect returns on Connected; the GATT objects are exported by ServicesResolved,
        // which a slow (sanitized) stand-in reaches later, so the script waits for it (busctl, up to 10 s;
        // bluetoothctl 5.66's info does not show it).
        let script = """
            bluetoothctl list
            bluetoothctl --timeout 1 scan on
            bluetoothctl devices
            bluetoothctl connect C0:00:00:00:00:42
            for i in $(seq 100); do busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" get-property org.bluez /org/bluez/hci0/dev_C0_00_00_00_00_42 org.bluez.Device1 ServicesResolved | grep -q true && break; sleep 0.1; done
            bluetoothctl --timeout 1 gatt.list-attributes C0:00:00:00:00:42
            """
        let outcome = try await DFUSimProcess.run(
            ["run", "--device", "secure,address=C0:00:00:00:00:42,name=SimBoot", "--", "sh", "-c", script])
        #expect(outcome.status == 0)
        #expect(outcome.output.contains("Controller 00:AA:01:00:00:00 dfu-sim [default]"))
        #expect(outcome.output.contains("Device C0:00:00:00:00:42 SimBoot"))
        #expect(outcome.output.contains("Connection successful"))
        #expect(outcome.output.contains("/org/bluez/hci0/dev_C0_00_00_00_00_42/service000e"))
        #expect(outcome.output.contains("8ec90001-f315-4f60-9fb8-838830daea50"))
        #expect(outcome.output.contains("8ec90002-f315-4f60-9fb8-838830daea50"))
    }

    @Test(.enabled(if: ToolRun.isInstalled("/usr/bin/busctl"), "needs busctl (Debian package systemd)"))
    func busctlIntrospectionShowsBluetoothdsSignatures() async throws {
        let script = """
            busctl --system introspect org.bluez /org/bluez/hci0
            busctl --system introspect org.bluez /org/bluez
            """
        let outcome = try await DFUSimProcess.run(["run", "--", "sh", "-c", script])
        #expect(outcome.status == 0)
        for line in [
            ".StartDiscovery", ".SetDiscoveryFilter", ".RemoveDevice", ".GetDiscoveryFilters",
            ".RegisterAgent", ".RequestDefaultAgent", ".RegisterProfile",
        ] {
            #expect(outcome.output.contains(line), "\(line)")
        }
        #expect(
            outcome.output.range(
                of: #"\.Powered\s+property\s+b\s+true\s+emits-change writable"#, options: .regularExpression) != nil)
        #expect(outcome.output.range(of: #"\.Discovering\s+property\s+b\s+false"#, options: .regularExpression) != nil)
        #expect(
            outcome.output.range(of: #"\.SetDiscoveryFilter\s+method\s+a\{sv\}"#, options: .regularExpression) != nil)
    }

    /// Direct children of `pid`, from /proc.
    private func childProcesses(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var children: [Int32] = []
        for task in tasks {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            children += text.split(separator: " ").compactMap {
                Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
        // Under a sanitizer (make test-sanitize) the runtime starts llvm-symbolizer to describe a report.
        return children.filter {
            (try? String(contentsOfFile: "/proc/\($0)/comm", encoding: .utf8))?.hasPrefix("llvm-symbolizer") != true
        }
    }
}
