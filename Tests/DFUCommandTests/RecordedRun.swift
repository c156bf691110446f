import DFUCommand
import Synchronization

/// The result of running `dfu` in-process with a context that records its output.
struct RecordedRun: Sendable {
    let code: ExitCode
    let output: String
    let error: String

    /// Runs `dfu ARGUMENTS` and records stdout, stderr and the exit code.
    static func dfu(_ arguments: String..., environment: [String: String] = [:]) async -> RecordedRun {
        await dfu(arguments: arguments, environment: environment)
    }

    /// Runs `dfu` with an argument list built at run time.
    static func dfu(arguments: [String], environment: [String: String] = [:], errorIsTerminal: Bool = false,
                    transports: TransportProvider? = nil, interrupts: InterruptController? = nil,
                    columns: Int? = nil, locksDevices: Bool = false) async -> RecordedRun {
        let out = Mutex("")
        let err = Mutex("")
        var context = CommandContext(
            writeOutput: { text in out.withLock { $0 += text } },
            writeError: { text in err.withLock { $0 += text } },
            environment: environment, errorIsTerminal: errorIsTerminal, terminalColumns: columns)
        if let transports { context.transports = transports }
        if let interrupts { context.interrupts = interrupts }
        context.locksDevices = locksDevices
        let code = await DFUCommand.main(arguments, context: context)
        return RecordedRun(code: code, output: out.withLock { $0 }, error: err.withLock { $0 })
    }

    /// The lines written to standard error.
    var errorLines: [Substring] { error.split(separator: "\n") }
}
