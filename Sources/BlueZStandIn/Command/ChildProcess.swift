import Glibc

/// A command `dfu-sim run` starts, with the private bus in its environment.
struct ChildProcess: Sendable {
    /// Its process id.
    let processIdentifier: pid_t

    /// Starts `arguments` (found on PATH) with `extraEnvironment` added, a clear signal mask and
    /// default signal handlers.
    init(_ arguments: [String], extraEnvironment: [String: String]) throws(StandInSpecError) {
        guard let program = arguments.first else { throw StandInSpecError("no command") }
        var environment: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            let key = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if extraEnvironment[key] == nil { environment.append(text) }
            index += 1
        }
        for (key, value) in extraEnvironment.sorted(by: { $0.key < $1.key }) { environment.append(key + "=" + value) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        for signal in [SIGINT, SIGTERM, SIGCHLD, SIGPIPE, SIGHUP, SIGQUIT] { sigaddset(&defaultSignals, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = arguments.map { strdup($0) }
        let envp = environment.map { strdup($0) }
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = (argv + [nil]).withUnsafeBufferPointer { argumentPointers -> Int32 in
            (envp + [nil]).withUnsafeBufferPointer { environmentPointers -> Int32 in
                guard let arguments = argumentPointers.baseAddress, let environment = environmentPointers.baseAddress
                else {
                    return EINVAL
                }
                return posix_spawnp(&pid, program, nil, &attributes, arguments, environment)
            }
        }
        guard result == 0 else {
            throw StandInSpecError("cannot run \(program): \(String(cString: strerror(result)))")
        }
        processIdentifier = pid
    }

    /// The exit status if the process ended (reaped now), nil while it runs. A process killed by a
    /// signal gives 128 + the signal number, as shells report it.
    func exitStatus() -> Int32? {
        var status: Int32 = 0
        let result = waitpid(processIdentifier, &status, WNOHANG)
        guard result == processIdentifier else {
            return result < 0 && errno == ECHILD ? 1 : nil
        }
        let low = status & 0x7F
        if low == 0 { return (status >> 8) & 0xFF }
        return 128 + low
    }

    /// Sends `signal`.
    func send(_ signal: Int32) { kill(processIdentifier, signal) }
}
