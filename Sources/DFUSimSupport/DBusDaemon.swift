public import DBus
import ProcessSpawning
import Synchronization
import SystemSupport

/// A private `dbus-daemon` process: a bus of our own, for tests and for stand-in services.
///
/// The daemon listens on a socket in a fresh temporary directory. It ends with its parent however
/// the parent ends: it runs under a small `/bin/sh` keeper whose standard input is a pipe only this
/// process holds open; when that pipe closes (``stop()``, the object going away, or the parent's
/// death, SIGKILL included) the keeper sends the daemon SIGTERM, waits for it and removes the
/// directory. (A parent-death signal would not do: Linux sends it when the *thread* that spawned
/// the child ends, and the threads of Swift's pools come and go.)
public final class DBusDaemon: Sendable {
    /// The address clients connect to, as printed by the daemon (`unix:path=…,guid=…`).
    public let address: String
    /// The daemon's process id.
    public let processIdentifier: Int32
    /// The temporary directory holding the configuration and the socket.
    public let directory: String
    /// The keeper (our child; the daemon is its child).
    private let keeper: SpawnedProcess
    /// Our end of the keeper's standard input; closing it ends the daemon.
    private let lifeline: FileDescriptor
    private let stopped = Mutex(false)

    /// Where `dbus-daemon` is installed: the first executable found on `PATH`, `/usr/bin`, `/bin`.
    public static func executablePath() -> String? {
        let path = CurrentProcess.environmentValue("PATH") ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin"]
        return directories.map { $0 + "/dbus-daemon" }.first { FileSystem.isExecutable($0) }
    }

    /// A bus configuration whose policy resembles the system bus: anyone may connect, call
    /// methods and send signals (replies only when requested), but only `ownableNames` may be owned.
    ///
    /// `extraPolicy` is inserted last in the default policy, for example
    /// `<deny send_interface="org.example.Forbidden"/>`.
    public static func systemLikeConfiguration(
        socketPath: String, ownableNames: [BusName], extraPolicy: [String] = []
    ) -> String {
        let owners = ownableNames.map { "    <allow own=\"\($0.rawValue)\"/>" }
        return """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>unix:path=\(socketPath)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <deny own="*"/>
            \(owners.joined(separator: "\n"))
                <allow send_type="method_call"/>
                <allow send_type="signal"/>
                <allow send_requested_reply="true" send_type="method_return"/>
                <allow send_requested_reply="true" send_type="error"/>
                <allow receive_type="method_call"/>
                <allow receive_type="method_return"/>
                <allow receive_type="error"/>
                <allow receive_type="signal"/>
            \(extraPolicy.map { "    " + $0 }.joined(separator: "\n"))
              </policy>
            </busconfig>
            """
    }

    /// Starts a daemon with a system-like policy (see ``systemLikeConfiguration(socketPath:ownableNames:extraPolicy:)``).
    ///
    /// Blocking: until the daemon prints its address (at most `startTimeout`); from async code, ``start(ownableNames:extraPolicy:startTimeout:around:)``.
    @available(*, noasync, message: "blocks its thread: use DBusDaemon.start")
    public convenience init(
        ownableNames: [BusName], extraPolicy: [String] = [], startTimeout: Duration = .seconds(5)
    ) throws(DBusError) {
        try self.init(startTimeout: startTimeout) { socketPath in
            Self.systemLikeConfiguration(socketPath: socketPath, ownableNames: ownableNames, extraPolicy: extraPolicy)
        }
    }

    /// Starts a daemon with the configuration `makeConfiguration` writes for a socket path.
    ///
    /// Blocking: until the daemon prints its address (at most `startTimeout`). Throws with
    /// code ``DBusError/Code/noServer`` when `dbus-daemon` is missing or does not start.
    @available(*, noasync, message: "blocks its thread: start it on a thread of its own")
    public init(
        startTimeout: Duration = .seconds(5),
        configuration makeConfiguration: (_ socketPath: String) -> String
    ) throws(DBusError) {
        guard let executable = Self.executablePath() else {
            throw DBusError(
                name: DBusError.Names.noServer, message: "dbus-daemon was not found (install the dbus-daemon package)")
        }
        let base = CurrentProcess.environmentValue("TMPDIR") ?? "/tmp"
        let directory: String
        do throws(Errno) {
            directory = try FileSystem.makeTemporaryDirectory(prefix: base + "/dfu-bus-")
        } catch {
            throw DBusError.failed("Cannot make a folder in \(base) for a bus: \(error)")
        }
        let configPath = directory + "/bus.conf"
        let configuration = makeConfiguration(directory + "/bus")
        do throws(FileWriteError) {
            try FileWriter.writeAtomically(Array(configuration.utf8), to: configPath)
        } catch {
            Self.removeDirectory(directory)
            throw DBusError.failed("Cannot write \(configPath): \(error)")
        }
        do {
            let started = try Self.spawn(
                executable, arguments: ["--config-file=\(configPath)", "--nofork", "--print-address=1"],
                directory: directory, startTimeout: startTimeout)
            self.processIdentifier = started.daemon
            self.keeper = started.keeper
            self.lifeline = started.lifeline
            self.address = started.address
            self.directory = directory
        } catch {
            Self.removeDirectory(directory)
            throw error
        }
    }

    /// Starts a daemon as ``init(ownableNames:extraPolicy:startTimeout:)`` does, waiting for its address on a
    /// thread of its own rather than on one of Swift's shared pool. `around` wraps the start on that thread
    /// (dfu-sim points its standard error elsewhere meanwhile, for the daemon to inherit).
    public static func start(
        ownableNames: [BusName], extraPolicy: [String] = [], startTimeout: Duration = .seconds(5),
        around: @escaping @Sendable (() -> Result<DBusDaemon, DBusError>) -> Result<DBusDaemon, DBusError> = { $0() }
    ) async throws(DBusError) -> DBusDaemon {
        try await DetachedThread.run {
            around {
                Result { () throws(DBusError) in
                    try DBusDaemon(ownableNames: ownableNames, extraPolicy: extraPolicy, startTimeout: startTimeout)
                }
            }
        }.get()
    }

    /// Starts a daemon as ``init(startTimeout:configuration:)`` does, waiting for its address on a thread of its own.
    public static func start(
        startTimeout: Duration = .seconds(5), configuration makeConfiguration: @escaping @Sendable (_ socketPath: String) -> String
    ) async throws(DBusError) -> DBusDaemon {
        try await DetachedThread.run {
            Result { () throws(DBusError) in try DBusDaemon(startTimeout: startTimeout, configuration: makeConfiguration) }
        }.get()
    }

    /// ``stop(grace:)`` on a thread of its own: the caller's task waits, no thread of Swift's shared pool does.
    public func shutDown(grace: Duration = .seconds(2)) async {
        await DetachedThread.run { [self] in stop(grace: grace) }
    }

    /// Runs `body`, then ``shutDown(grace:)``, whether `body` returned or threw.
    public func shuttingDown<Result>(after body: () async throws -> Result) async throws -> Result {
        do {
            let result = try await body()
            await shutDown()
            return result
        } catch {
            await shutDown()
            throw error
        }
    }

    /// Whether the daemon is still running (it has not been reaped).
    public var isRunning: Bool {
        stopped.withLock { $0 } ? false : (try? ProcessSignal.existenceCheck.send(to: processIdentifier)) != nil
    }

    /// Stops the daemon: closes the keeper's lifeline (the keeper sends the daemon SIGTERM, reaps it
    /// and removes its directory), kills both if they are still there after `grace`, then reaps the
    /// keeper and removes whatever is left of the directory. Calling it again does nothing.
    ///
    /// Blocking: until the keeper has exited (at most `grace` plus the time SIGKILL takes); from async code,
    /// ``shutDown(grace:)``.
    @available(*, noasync, message: "blocks its thread: use shutDown()")
    public func stop(grace: Duration = .seconds(2)) {
        let alreadyStopped = stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !alreadyStopped else { return }
        try? lifeline.close()
        if keeper.waitForExit(within: grace) == nil {
            try? ProcessSignal.kill.send(to: processIdentifier)
            keeper.send(.kill)
            _ = keeper.waitForExit()
        }
        Self.removeDirectory(directory)
    }

    deinit {
        stop()
    }

    // MARK: Process plumbing

    /// The daemon's standard error, in its directory. Not the parent's: a daemon outlives a parent
    /// that crashed (nothing stops it then), and would keep the parent's standard error open for
    /// whoever waits for its end (a test runner reading it to the end would wait for ever).
    static let logName = "daemon.log"

    /// Held from the keeper's pipes' creation to its spawn.
    private static let spawnLock = Mutex(())

    /// The keeper: starts the daemon in the background (a non-interactive shell's background job
    /// ignores SIGINT, so a Ctrl-C to the terminal's process group leaves the daemon to the keeper),
    /// prints its process id and closes its standard output (so that the pipe ends when the daemon does:
    /// a daemon that cannot start is seen at once), then reads its standard input until the end, which comes when the
    /// last holder of the pipe's other end (this process) closes it or dies. Then it ends the
    /// daemon and removes the directory. `$1` is the directory, the rest the daemon's command.
    static let keeperScript = """
        trap '' INT HUP
        dir=$1; shift
        "$@" < /dev/null &
        daemon=$!
        echo "pid $daemon"
        exec >&-
        while read -r _; do :; done
        kill -TERM "$daemon" 2> /dev/null
        wait "$daemon"
        rm -f "$dir/bus" "$dir/bus.conf" "$dir/\(logName)"
        rmdir "$dir"
        """

    private static func spawn(
        _ executable: String, arguments: [String], directory: String, startTimeout: Duration
    ) throws(DBusError) -> (keeper: SpawnedProcess, daemon: Int32, lifeline: FileDescriptor, address: String) {
        // Both pipes close on exec here: only the keeper gets them (as its standard input and
        // output). They are made close-on-exec right after pipe (FileDescriptor.pipe), and daemons
        // started on other threads wait meanwhile (spawnLock): no other keeper inherits a lifeline,
        // which would keep that daemon alive as long as the other keeper runs.
        let (keeper, readEnd, lifeline) = try spawnLock.withLock { _ throws(DBusError) -> (SpawnedProcess, FileDescriptor, FileDescriptor) in
            try startKeeper(executable, arguments: arguments, directory: directory)
        }
        defer { try? readEnd.close() }
        // The keeper's "pid N" and the daemon's address, in either order.
        var daemon: Int32?
        var address: String?
        let deadline = ContinuousClock.now + startTimeout
        var pending: [UInt8] = []
        while daemon == nil || address == nil, let line = readLine(from: readEnd, pending: &pending, until: deadline) {
            if line.hasPrefix("pid ") { daemon = Int32(line.dropFirst(4)) } else if line.hasPrefix("unix:") { address = line }
        }
        guard let daemon, let address else {
            // The daemon's words first: once the lifeline closes, the keeper removes the folder and its log.
            let said = Self.firstLine(of: directory + "/" + logName).map { ": \($0)" } ?? ""
            try? lifeline.close()
            if let daemon { try? ProcessSignal.kill.send(to: daemon) }
            keeper.send(.kill)
            _ = keeper.waitForExit()
            throw DBusError(name: DBusError.Names.noServer, message: "dbus-daemon did not start (no address printed)\(said)")
        }
        return (keeper, daemon, lifeline, address)
    }

    /// Spawns the keeper; returns it, our end of its output and its lifeline.
    private static func startKeeper(
        _ executable: String, arguments: [String], directory: String
    ) throws(DBusError) -> (SpawnedProcess, FileDescriptor, FileDescriptor) {
        let output: (readEnd: FileDescriptor, writeEnd: FileDescriptor)
        let input: (readEnd: FileDescriptor, writeEnd: FileDescriptor)
        do throws(Errno) {
            output = try FileDescriptor.pipe()
            do throws(Errno) { input = try FileDescriptor.pipe() } catch {
                try? output.readEnd.close()
                try? output.writeEnd.close()
                throw error
            }
        } catch {
            throw DBusError.failed("pipe failed: \(error)")
        }
        let lifeline = input.writeEnd
        var options = SpawnedProcess.Options()
        options.descriptors = [(input.readEnd, .standardInput), (output.writeEnd, .standardOutput)]
        options.appendedFiles = [(directory + "/" + logName, .standardError)]
        options.defaultSignals = [.terminate, .interrupt, .hangUp, .brokenPipe]
        let shell = "/bin/sh"
        let spawned = Result { () throws(SpawnError) in
            try SpawnedProcess([shell, "-c", keeperScript, "dfu-bus-keeper", directory, executable] + arguments, options: options)
        }
        try? output.writeEnd.close()
        try? input.readEnd.close()
        switch spawned {
        case .success(let keeper):
            return (keeper, output.readEnd, lifeline)
        case .failure(let error):
            try? lifeline.close()
            try? output.readEnd.close()
            throw DBusError(name: DBusError.Names.noServer, message: "Cannot start \(shell) for \(executable): \(error)")
        }
    }

    /// Reads the next line from `descriptor` (bytes after it stay in `pending`), giving up at end of
    /// file or at `deadline`.
    private static func readLine(
        from descriptor: FileDescriptor, pending: inout [UInt8], until deadline: ContinuousClock.Instant
    ) -> String? {
        while !pending.contains(UInt8(ascii: "\n")) {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero,
                let ready = try? descriptor.poll(for: .readable, timeout: remaining + .milliseconds(1)), !ready.isEmpty
            else { return nil }
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = (try? buffer.withUnsafeMutableBytes { bytes throws(Errno) in try descriptor.read(into: bytes) }) ?? 0
            guard count > 0 else { return nil }
            pending += buffer[0..<count]
        }
        guard let end = pending.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = String(decoding: pending[..<end], as: UTF8.self)
        pending.removeSubrange(...end)
        return line.trimmingWhitespace
    }

    /// The first line of the file at `path` that is not empty, without control characters; nil when there is none.
    private static func firstLine(of path: String) -> String? {
        guard let bytes = try? FileReader.read(path) else { return nil }
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            var text = String.UnicodeScalarView()
            text.append(contentsOf: String(decoding: line, as: UTF8.self).unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
            if !text.isEmpty { return String(text) }
        }
        return nil
    }

    private static func removeDirectory(_ directory: String) {
        for name in ["bus", "bus.conf", logName] {
            try? FileSystem.removeFile(directory + "/" + name)
        }
        try? FileSystem.removeDirectory(directory)
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        var scalars = Substring(self)
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        return String(scalars)
    }
}
