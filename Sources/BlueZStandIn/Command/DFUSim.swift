import DBus
import Glibc

/// `dfu-sim` as a library: parse, start a private bus and the stand-in, run or serve, clean up.
public enum DFUSim {
    /// Blocks SIGINT, SIGTERM and SIGCHLD in the calling thread (and the threads it starts later),
    /// so that ``main(_:)`` receives them with `sigtimedwait`. Call first thing in `main`.
    public static func blockTerminationSignals() {
        var set = terminationSignals
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    private static var terminationSignals: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGCHLD)
        return set
    }

    /// A pending SIGINT or SIGTERM (never waits), or nil.
    private static func pendingTermination() -> Int32? {
        var set = terminationSignals
        var timeout = timespec(tv_sec: 0, tv_nsec: 0)
        while true {
            let signal = sigtimedwait(&set, nil, &timeout)
            if signal == SIGINT || signal == SIGTERM { return signal }
            if signal < 0 { return nil }
        }
    }

    /// Runs `dfu-sim` with `arguments` (without the program name); returns the exit status.
    public static func main(_ arguments: [String]) async -> Int32 {
        let parsed: DFUSimArguments
        do {
            parsed = try DFUSimArguments(arguments)
        } catch {
            writeError("dfu-sim: \(error.message)\n" + "Try 'dfu-sim --help'.\n")
            return 64
        }
        if parsed.mode == .help {
            writeOutput(DFUSimArguments.usage)
            return 0
        }
        let daemon: DBusDaemon
        let connection: DBusConnection
        let standIn: BlueZStandIn
        do {
            daemon = try DBusDaemon(ownableNames: [try BusName(BlueZNames.service)])
            connection = try DBusConnection(address: daemon.address)
            standIn = try BlueZStandIn(connection: connection, configuration: parsed.configuration)
            try await standIn.start()
        } catch {
            writeError("dfu-sim: cannot start the private bus: \(error)\n")
            return 69
        }
        let status: Int32
        switch parsed.mode {
        case .run(let command):
            status = await run(command, address: daemon.address)
        case .serve, .help:
            writeOutput(daemon.address + "\n")
            while pendingTermination() == nil {
                try? await Task.sleep(for: .milliseconds(20))
            }
            status = 0
        }
        await standIn.stop()
        var result = status
        if let path = parsed.reportPath {
            let report = await standIn.report()
            do {
                try write(try report.json(), to: path)
            } catch {
                writeError("dfu-sim: cannot write the report \(path): \(error)\n")
                if result == 0 { result = 1 }
            }
        }
        connection.close()
        daemon.stop()
        return result
    }

    /// Starts `command` on the bus at `address`; forwards SIGINT/SIGTERM to it; returns its status.
    private static func run(_ command: [String], address: String) async -> Int32 {
        let child: ChildProcess
        do {
            child = try ChildProcess(command, extraEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": address])
        } catch {
            writeError("dfu-sim: \(error.message)\n")
            return 127
        }
        var killDeadline: ContinuousClock.Instant?
        while true {
            if let status = child.exitStatus() { return status }
            if let signal = pendingTermination() {
                child.send(signal)
                killDeadline = killDeadline ?? ContinuousClock.now + .seconds(5)
            }
            if let deadline = killDeadline, ContinuousClock.now > deadline {
                child.send(SIGKILL)
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    private static func write(_ text: String, to path: String) throws(StandInSpecError) {
        guard let file = fopen(path, "w") else { throw StandInSpecError(String(cString: strerror(errno))) }
        let bytes = Array(text.utf8)
        let written = fwrite(bytes, 1, bytes.count, file)
        guard fclose(file) == 0, written == bytes.count else { throw StandInSpecError("short write") }
    }

    static func writeOutput(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
    }

    static func writeError(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
