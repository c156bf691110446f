public import Glibc

/// A child process started with `posix_spawn`: the one way the project starts programs (dfu-sim's
/// command, the benchmark's runs, the tests' servers).
public struct SpawnedProcess: Sendable {
    /// What the child gets besides its arguments.
    public struct Options: Sendable {
        /// Look the program up on `PATH` (`posix_spawnp`) instead of taking it as a path.
        public var searchesPath = false
        /// Variables added to (or replacing those of) this process's environment.
        public var extraEnvironment: [String: String] = [:]
        /// Descriptors to install in the child: `(descriptor, as)`, e.g. a pipe's write end as 1.
        public var descriptors: [(Int32, Int32)] = []
        /// Signals set back to their default action in the child, with an empty signal mask; empty
        /// leaves both as inherited.
        public var defaultSignals: [Int32] = []

        public init() {}
    }

    /// Its process id.
    public let processIdentifier: pid_t

    /// Starts `arguments[0]` with `arguments` as its argument vector; the error is `posix_spawn`'s.
    public init(_ arguments: [String], options: Options = Options()) throws(SpawnError) {
        guard let program = arguments.first else { throw SpawnError(program: "", code: EINVAL) }
        var environment: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            let key = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if options.extraEnvironment[key] == nil { environment.append(text) }
            index += 1
        }
        for (key, value) in options.extraEnvironment.sorted(by: { $0.key < $1.key }) { environment.append(key + "=" + value) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, target) in options.descriptors { posix_spawn_file_actions_adddup2(&actions, descriptor, target) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        if !options.defaultSignals.isEmpty {
            var noSignals = sigset_t()
            sigemptyset(&noSignals)
            var defaultSignals = sigset_t()
            sigemptyset(&defaultSignals)
            for signal in options.defaultSignals { sigaddset(&defaultSignals, signal) }
            posix_spawnattr_setsigmask(&attributes, &noSignals)
            posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        }

        let argv = arguments.map { strdup($0) }
        let envp = environment.map { strdup($0) }
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

    /// Waits for the process to end (blocking this thread: for a dedicated thread or a test) and
    /// returns its status and resource use; nil if it cannot be waited for.
    public func waitForExit() -> (status: Int32, usage: rusage)? {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(processIdentifier, &status, 0, &usage) < 0 {
            guard errno == EINTR else { return nil }
        }
        return (Self.shellStatus(status), usage)
    }

    /// Sends `signal`.
    public func send(_ signal: Int32) { kill(processIdentifier, signal) }

    /// A wait status as shells report it: the exit code, or 128 + the signal that ended it.
    public static func shellStatus(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
