import DBus
import DFUSimStandIn
import DFUSimSupport
import ProcessSpawning
import SystemSupport

/// `dfu-sim` as a library: parse, start a private bus and the stand-in, run or serve, clean up.
public enum DFUSim {
    /// Takes SIGINT, SIGTERM and SIGHUP from here on (``DFUSimSignals``: `run` forwards them to its command,
    /// `serve` stops or restarts the stand-in) and ignores SIGPIPE.
    public static func installSignalHandlers() {
        CurrentProcess.ignore(.brokenPipe)
        _ = DFUSimSignals.shared
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
        if let path = parsed.reportPath, let problem = unwritable(path) {
            writeError("dfu-sim: --report \(path): cannot write it (\(problem))\n" + "Try 'dfu-sim --help'.\n")
            return 64
        }
        let daemon: DBusDaemon
        let connection: DBusConnection
        let standIn: BlueZStandIn
        do {
            daemon = try await DBusDaemon.start(ownableNames: [try BusName(BlueZNames.service)]) { start in
                withStandardErrorSilenced(start)
            }
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
            for await number in DFUSimSignals.shared.arrivals {
                guard number == .hangUp else { break }
                await standIn.restart()
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
        await daemon.shutDown()
        return result
    }

    /// Starts `command` on the bus at `address`; forwards SIGINT/SIGTERM/SIGHUP to it; returns its status.
    private static func run(_ command: [String], address: String) async -> Int32 {
        let child: SpawnedProcess
        do throws(SpawnError) {
            // COMMAND is found on PATH, with a clear signal mask and default handlers (not dfu-sim's).
            var options = SpawnedProcess.Options()
            options.searchesPath = true
            options.extraEnvironment = ["DBUS_SYSTEM_BUS_ADDRESS": address]
            options.defaultSignals = [.interrupt, .terminate, .childEnded, .brokenPipe, .hangUp, .quit]
            options.inheritsDescriptors = true
            child = try SpawnedProcess(command, options: options)
        } catch {
            writeError("dfu-sim: \(error.description)\n")
            return 127
        }
        // One stream of what the command waits for: the child's end (its wait on a thread of its own, as the
        // kernel reports it), the signals that arrive, and the kill deadline after a termination signal.
        let (events, sink) = AsyncStream.makeStream(of: RunEvent.self)
        defer { sink.finish() }
        do {
            try DetachedThread.start { sink.yield(.exited(child.waitForExit()?.status ?? 1)) }
        } catch {
            child.send(.kill)
            writeError("dfu-sim: cannot wait for \(command[0]): \(error)\n")
            return 70
        }
        let forwarder = Task {
            for await number in DFUSimSignals.shared.arrivals { sink.yield(.signal(number)) }
        }
        defer { forwarder.cancel() }
        var killing = false
        for await event in events {
            switch event {
            case .exited(let status):
                return status
            case .signal(.hangUp):
                // `run` restarts nothing: a hang-up goes to COMMAND, as it did before dfu-sim caught SIGHUP.
                child.send(.hangUp)
            case .signal(let number):
                child.send(number)
                guard !killing else { continue }
                killing = true
                Task {
                    try? await Task.sleep(for: .seconds(5))
                    sink.yield(.killDeadline)
                }
            case .killDeadline:
                child.send(.kill)
            }
        }
        return 1
    }

    /// What `run` waits for.
    private enum RunEvent: Sendable {
        /// The command ended with this shell status.
        case exited(Int32)
        /// A signal arrived for dfu-sim.
        case signal(ProcessSignal)
        /// Five seconds after the first termination signal: the command is killed.
        case killDeadline
    }

    /// Runs `body` with file descriptor 2 pointing at /dev/null, so that a process it starts inherits
    /// that (dbus-daemon warns about its fd limit on every start when not root-capable; the warning
    /// would land in COMMAND's error stream).
    private static func withStandardErrorSilenced<T>(_ body: () throws -> T) rethrows -> T {
        let saved = try? FileDescriptor.standardError.duplicate()
        let null = try? FileDescriptor.open("/dev/null", .writeOnly)
        if saved != nil, let null { try? null.duplicate(as: .standardError) }
        defer {
            if let saved {
                try? saved.duplicate(as: .standardError)
                try? saved.close()
            }
            try? null?.close()
        }
        return try body()
    }

    /// Why the report could not be written at `path`, or nil: checked before COMMAND starts,
    /// without opening the path (a FIFO there would block the open): what is there must be a
    /// regular file or nothing, in a folder this process may write.
    private static func unwritable(_ path: String) -> String? {
        guard !path.isEmpty else { return "an empty path" }
        if let status = try? FileSystem.linkStatus(of: path), status.kind != .regular, status.kind != .symbolicLink {
            return status.kind == .directory ? "is a directory" : "is not a regular file"
        }
        let folder = path.lastIndex(of: "/").map { path[..<$0].isEmpty ? "/" : String(path[..<$0]) } ?? "."
        do throws(Errno) { try FileSystem.checkWritable(folder) } catch { return error.description }
        return nil
    }

    /// Writes the report through ``FileWriter``: a temporary file beside it, then renamed, so a
    /// link at the path is replaced rather than followed and nothing is truncated before it is written.
    private static func write(_ text: String, to path: String) throws(StandInSpecError) {
        do {
            try FileWriter.writeAtomically(Array(text.utf8), to: path)
        } catch {
            throw StandInSpecError(error.reason)
        }
    }

    static func writeOutput(_ text: String) {
        try? FileDescriptor.standardOutput.writeAll(text.utf8)
    }

    static func writeError(_ text: String) {
        try? FileDescriptor.standardError.writeAll(text.utf8)
    }
}
