import Synchronization
import SystemSupport

extension CommandContext {
    /// The real world: the process's stdout, stderr and environment.
    public static func standard(environment: [String: String]) -> CommandContext {
        CommandContext(
            writeOutput: { StandardStream.write($0, to: .standardOutput) },
            writeError: { StandardStream.write($0, to: .standardError) },
            environment: environment,
            outputIsTerminal: FileDescriptor.standardOutput.isTerminal,
            errorIsTerminal: FileDescriptor.standardError.isTerminal,
            outputError: { StandardStream.outputFailure.withLock { $0 } },
            terminalColumns: FileDescriptor.standardError.terminalColumns ?? environment["COLUMNS"].flatMap { Int($0) })
    }
}

/// Unbuffered writes to a file descriptor, retried on EINTR and partial writes.
enum StandardStream {
    /// Why standard output could not be written, the first time it failed (a full disk, an I/O error).
    static let outputFailure = Mutex<String?>(nil)

    /// Writes all of `text` to `fd`; a closed pipe ends the process quietly, any other failure
    /// on standard output is kept in ``outputFailure``.
    static func write(_ text: String, to fd: FileDescriptor) {
        do throws(Errno) {
            try fd.writeAll(text.utf8)
        } catch {
            if fd == .standardOutput && error != .brokenPipe {
                outputFailure.withLock { $0 = $0 ?? error.description }
            }
        }
    }
}
