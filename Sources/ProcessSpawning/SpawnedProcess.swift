internal import CLinux
#if canImport(Glibc)
@preconcurrency import Glibc
#endif
public import SystemSupport

/// A child process started with `posix_spawn`: the one way the project starts programs (dfu-sim's
/// command and its private dbus-daemon, the benchmark's runs, the tests' servers). The shipped `dfu`
/// starts none and does not link this target (scripts/check-imports.py).
public struct SpawnedProcess: Sendable {
    /// What the child gets besides its arguments.
    public struct Options: Sendable {
        /// Look the program up on `PATH` (`posix_spawnp`) instead of taking it as a path.
        public var searchesPath = false
        /// Variables added to (or replacing those of) this process's environment.
        public var extraEnvironment: [String: String] = [:]
        /// Descriptors to install in the child: `(descriptor, as)`, e.g. a pipe's write end as 1.
        public var descriptors: [(FileDescriptor, FileDescriptor)] = []
        /// Files opened in the child for appending (made 0600 when absent): `(path, as)`.
        public var appendedFiles: [(String, FileDescriptor)] = []
        /// Signals set back to their default action in the child, with an empty signal mask; empty
        /// leaves both as inherited.
        public var defaultSignals: [ProcessSignal] = []
        /// Whether the child keeps every descriptor of this process not marked close-on-exec. By default it gets
        /// only 0, 1 and 2: a descriptor opened elsewhere in the process without `O_CLOEXEC` (Foundation's `Pipe`
        /// makes such pipes) would otherwise live on in a long-lived child, such as a bus daemon, and whoever waits
        /// for the end of that pipe would wait as long as the child lives. A user's own command keeps what it was
        /// given (e.g. a make jobserver's pipes).
        public var inheritsDescriptors = false

        public init() {}
    }

    /// Its process id.
    public let processIdentifier: Int32

    /// Starts `arguments[0]` with `arguments` as its argument vector; the error is `posix_spawn`'s.
    public init(_ arguments: [String], options: Options = Options()) throws(SpawnError) {
        guard let program = arguments.first else { throw SpawnError(program: "", code: EINVAL) }
        var environment = CurrentProcess.environment
        environment.merge(options.extraEnvironment) { _, added in added }
        let pairs = environment.sorted { $0.key < $1.key }.map { $0.key + "=" + $0.value }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, target) in options.descriptors {
            posix_spawn_file_actions_adddup2(&actions, descriptor.rawValue, target.rawValue)
        }
        for (path, target) in options.appendedFiles {
            posix_spawn_file_actions_addopen(&actions, target.rawValue, path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        }
        if !options.inheritsDescriptors {
            let installed = (options.descriptors.map(\.1) + options.appendedFiles.map(\.1)).map(\.rawValue)
            _ = clinux_spawn_close_from(&actions, max(3, (installed.max() ?? 0) + 1))
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if !options.defaultSignals.isEmpty {
            var noSignals = sigset_t()
            sigemptyset(&noSignals)
            var defaultSignals = sigset_t()
            sigemptyset(&defaultSignals)
            for signal in options.defaultSignals { sigaddset(&defaultSignals, signal.rawValue) }
            posix_spawnattr_setsigmask(&attributes, &noSignals)
            posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        }

        let argv = arguments.map { strdup($0) }
        let envp = pairs.map { strdup($0) }
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = (argv + [nil]).withUnsafeBufferPointer { argumentPointers -> Int32 in
            (envp + [nil]).withUnsafeBufferPointer { environmentPointers -> Int32 in
                guard let arguments = argumentPointers.baseAddress, let environment = environmentPointers.baseAddress else {
                    return EINVAL
                }
                return options.searchesPath
                    ? posix_spawnp(&pid, program, &actions, &attributes, arguments, environment)
                    : posix_spawn(&pid, program, &actions, &attributes, arguments, environment)
            }
        }
        guard result == 0 else { throw SpawnError(program: program, code: result) }
        processIdentifier = pid
    }

    /// How a process ended, with what it used.
    public struct Exit: Sendable {
        /// As shells report it: the exit code, or 128 + the signal that ended it.
        public let status: Int32
        /// Its own CPU time and peak RSS (not its children's).
        public let usage: ResourceUsage
    }

    /// Waits for the process to end (blocking this thread: for a dedicated thread or a test) and
    /// returns how it ended; nil if it cannot be waited for (not a child, or already reaped).
    ///
    /// The corresponding C function is `wait4`, called again after `EINTR`.
    @available(*, noasync, message: "blocks its thread: wait on a thread of its own")
    public func waitForExit() -> Exit? {
        var status: Int32 = 0
        var usage = rusage()
        guard (try? SystemCall.retryingOnInterrupt { wait4(processIdentifier, &status, 0, &usage) }) != nil else { return nil }
        return Exit(
            status: Self.shellStatus(status),
            usage: ResourceUsage(
                userSeconds: Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
                systemSeconds: Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6,
                maximumResidentKiB: Int(usage.ru_maxrss)))
    }

    /// Waits at most `timeout` for the process to end, without holding a lock or polling: a pidfd
    /// (Linux 5.3) becomes readable when it ends. Returns its shell status once reaped, nil when the time
    /// passed first (or it cannot be waited for). Blocks this thread.
    ///
    /// The corresponding C functions are `pidfd_open`, `poll` and `waitpid`.
    @available(*, noasync, message: "blocks its thread: wait on a thread of its own")
    public func waitForExit(within timeout: Duration) -> Int32? {
        let opened = try? SystemCall.once { clinux_pidfd_open(processIdentifier) }
        guard let opened else { return nil }
        let pidfd = FileDescriptor(rawValue: opened)
        defer { try? pidfd.close() }
        guard let ready = try? pidfd.poll(for: .readable, timeout: timeout), !ready.isEmpty else { return nil }
        var status: Int32 = 0
        guard (try? SystemCall.retryingOnInterrupt { waitpid(processIdentifier, &status, 0) }) != nil else { return nil }
        return Self.shellStatus(status)
    }

    /// Whether the process exists (and is not yet reaped). The corresponding C function is `kill` with signal 0.
    public var isRunning: Bool { (try? ProcessSignal.existenceCheck.send(to: processIdentifier)) != nil }

    /// Sends `signal`. The corresponding C function is `kill`.
    public func send(_ signal: ProcessSignal) { try? signal.send(to: processIdentifier) }

    /// A wait status as shells report it: the exit code, or 128 + the signal that ended it.
    public static func shellStatus(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
