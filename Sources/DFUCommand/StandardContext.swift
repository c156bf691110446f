#if canImport(Glibc)
@preconcurrency import Glibc
#endif
import Synchronization

extension CommandContext {
    /// The real world: the process's stdout, stderr and environment.
    public static func standard(environment: [String: String]) -> CommandContext {
        CommandContext(
            writeOutput: { StandardStream.write($0, to: STDOUT_FILENO) },
            writeError: { StandardStream.write($0, to: STDERR_FILENO) },
            environment: environment,
            outputIsTerminal: isatty(STDOUT_FILENO) == 1,
            errorIsTerminal: isatty(STDERR_FILENO) == 1,
            outputError: { StandardStream.outputFailure.withLock { $0 } },
            terminalColumns: terminalColumns(of: STDERR_FILENO) ?? environment["COLUMNS"].flatMap { Int($0) })
    }

    /// The width of the terminal on `fd`, or nil when it is none.
    ///
    /// The corresponding C function is `ioctl` with `TIOCGWINSZ`.
    static func terminalColumns(of fd: Int32) -> Int? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }
}

/// Unbuffered writes to a file descriptor, retried on EINTR and partial writes.
enum StandardStream {
    /// Why standard output could not be written, the first time it failed (a full disk, an I/O error).
    static let outputFailure = Mutex<String?>(nil)

    /// Writes all of `text` to `fd`; a closed pipe ends the process quietly, any other failure
    /// on standard output is kept in ``outputFailure``.
    ///
    /// The corresponding C function is `write`.
    static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                let code = errno
                if code == EINTR { continue }
                if fd == STDOUT_FILENO && code != EPIPE {
                    outputFailure.withLock { $0 = $0 ?? String(cString: strerror(code)) }
                }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }
}
