import Glibc
import Synchronization

/// A private `dbus-daemon` process: a bus of our own, for tests and for stand-in services.
///
/// The daemon listens on a socket in a fresh temporary directory and is stopped by ``stop()``
/// or when the object goes away (SIGTERM, then SIGKILL after a grace period, then `waitpid`).
/// It is started with `posix_spawn` and a cleared signal mask, so SIGTERM reaches it even when
/// the parent blocks signals.
public final class DBusDaemon: Sendable {
    /// The address clients connect to, as printed by the daemon (`unix:path=…,guid=…`).
    public let address: String
    /// The daemon's process id.
    public let processIdentifier: Int32
    /// The temporary directory holding the configuration and the socket.
    public let directory: String
    private let stopped = Mutex(false)

    /// Where `dbus-daemon` is installed: the first executable found on `PATH`, `/usr/bin`, `/bin`.
    public static func executablePath() -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin"]
        return directories.map { $0 + "/dbus-daemon" }.first { access($0, X_OK) == 0 }
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
    /// Blocking: until the daemon prints its address (at most `startTimeout`).
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
    public init(
        startTimeout: Duration = .seconds(5),
        configuration makeConfiguration: (_ socketPath: String) -> String
    ) throws(DBusError) {
        guard let executable = Self.executablePath() else {
            throw DBusError(
                name: DBusError.Names.noServer, message: "dbus-daemon was not found (install the dbus-daemon package)")
        }
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array((base + "/dfu-bus-XXXXXX").utf8CString)
        guard mkdtemp(&template) != nil else {
            throw DBusError.failed("mkdtemp failed with errno \(errno)")
        }
        let directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let configPath = directory + "/bus.conf"
        let configuration = makeConfiguration(directory + "/bus")
        guard Self.write(configuration, to: configPath) else {
            Self.removeDirectory(directory)
            throw DBusError.failed("Cannot write \(configPath)")
        }
        do {
            let (pid, address) = try Self.spawn(
                executable, arguments: ["--config-file=\(configPath)", "--nofork", "--print-address=1"],
                log: directory + "/" + Self.logName, startTimeout: startTimeout)
            self.processIdentifier = pid
            self.address = address
            self.directory = directory
        } catch {
            Self.removeDirectory(directory)
            throw error
        }
    }

    /// Whether the daemon is still running (it has not been reaped).
    public var isRunning: Bool {
        stopped.withLock { $0 } ? false : kill(processIdentifier, 0) == 0
    }

    /// Stops the daemon: SIGTERM, SIGKILL if it is still there after `grace`, then reaps it and
    /// removes its directory. Calling it again does nothing.
    ///
    /// Blocking: until the daemon has exited (at most `grace` plus the time SIGKILL takes).
    public func stop(grace: Duration = .seconds(2)) {
        let alreadyStopped = stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !alreadyStopped else { return }
        kill(processIdentifier, SIGTERM)
        let deadline = ContinuousClock.now + grace
        var status: Int32 = 0
        while waitpid(processIdentifier, &status, WNOHANG) == 0 {
            if ContinuousClock.now >= deadline {
                kill(processIdentifier, SIGKILL)
                _ = waitpid(processIdentifier, &status, 0)
                break
            }
            usleep(2000)
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

    private static func spawn(
        _ executable: String, arguments: [String], log: String, startTimeout: Duration
    ) throws(DBusError) -> (Int32, String) {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw DBusError.failed("pipe failed with errno \(errno)") }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        defer { close(readEnd) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_addclose(&actions, readEnd)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_APPEND, 0o600)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaultSignals, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = (argv + [nil]).withUnsafeBufferPointer { arguments -> Int32 in
            guard let base = arguments.baseAddress else { return EINVAL }
            return posix_spawn(&pid, executable, &actions, &attributes, base, environ)
        }
        close(writeEnd)
        guard spawned == 0 else {
            throw DBusError(name: DBusError.Names.noServer, message: "Cannot start \(executable): error \(spawned)")
        }
        guard let address = readLine(from: readEnd, within: startTimeout), address.hasPrefix("unix:") else {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            let said = Self.firstLine(of: log).map { ": \($0)" } ?? ""
            throw DBusError(name: DBusError.Names.noServer, message: "dbus-daemon did not start (no address printed)\(said)")
        }
        return (pid, address)
    }

    /// Reads one line from `descriptor`, giving up at end of file or after `timeout`.
    private static func readLine(from descriptor: Int32, within timeout: Duration) -> String? {
        var bytes: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        while !bytes.contains(UInt8(ascii: "\n")) {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return nil }
            var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
            let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + 1)
            guard poll(&descriptors, 1, milliseconds) > 0 else { return nil }
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        let line = bytes.split(separator: UInt8(ascii: "\n")).first.map { String(decoding: $0, as: UTF8.self) }
        return line?.trimmingWhitespace
    }

    private static func write(_ text: String, to path: String) -> Bool {
        guard let file = fopen(path, "w") else { return false }
        let bytes = Array(text.utf8)
        let written = fwrite(bytes, 1, bytes.count, file)
        return fclose(file) == 0 && written == bytes.count
    }

    /// The first line of the file at `path` that is not empty, without control characters; nil when there is none.
    private static func firstLine(of path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 512)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var line = String.UnicodeScalarView()
            line.append(contentsOf: text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F })
            if !line.isEmpty { return String(line) }
        }
        return nil
    }

    private static func removeDirectory(_ directory: String) {
        for name in ["bus", "bus.conf", logName] {
            unlink(directory + "/" + name)
        }
        rmdir(directory)
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
