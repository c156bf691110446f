public import DFUCore
public import SystemSupport

/// Everything a command may touch in the outside world: its output streams, the environment,
/// the file system, the Bluetooth stack and the interrupt signals.
///
/// `dfu` itself uses ``CommandContext/standard``; tests pass a context that records the output.
public struct CommandContext: Sendable {
    /// Writes data to standard output.
    public var writeOutput: @Sendable (String) -> Void
    /// Writes messages to standard error.
    public var writeError: @Sendable (String) -> Void
    /// The environment variables.
    public var environment: [String: String]
    /// Whether standard output is a terminal.
    public var outputIsTerminal: Bool
    /// Whether standard error is a terminal.
    public var errorIsTerminal: Bool
    /// Reads a whole file. Throws ``FileReadError`` naming the cause.
    public var readFile: @Sendable (String) throws(FileReadError) -> [UInt8]
    /// Opens links to devices (BlueZ in `dfu`, simulated devices in tests).
    public var transports: TransportProvider
    /// Receives Ctrl-C and SIGTERM.
    public var interrupts: InterruptController
    /// The width of the terminal on standard error, when it is one and the width is known.
    public var terminalColumns: Int?
    /// Whether an upload takes a per-device lock so another `dfu` process cannot write to the same
    /// device (on for BlueZ; simulated devices live in one process).
    public var locksDevices = false
    /// Asks a person for the passkey a device shows while pairing, when `--passkey` was not given (on a
    /// terminal; nil elsewhere and in tests).
    public var passkeyPrompt: DFUPasskeyPrompt?
    /// Why standard output could not be written, when a write to it failed (e.g. "No space left on device").
    public var outputError: @Sendable () -> String?
    /// Where the command's own tasks run: the process's event loop in `dfu`, which then needs no thread but its
    /// main one; nil, the global pool (tests).
    public var executor: (any TaskExecutor)?

    /// Makes a context from its parts.
    public init(
        writeOutput: @escaping @Sendable (String) -> Void,
        writeError: @escaping @Sendable (String) -> Void,
        environment: [String: String] = [:],
        outputIsTerminal: Bool = false,
        errorIsTerminal: Bool = false,
        readFile: @escaping @Sendable (String) throws(FileReadError) -> [UInt8] = FileReader.read,
        transports: TransportProvider = .unavailable(
            "this dfu was built without a Bluetooth stack; BlueZ is not available"),
        interrupts: InterruptController = InterruptController(),
        outputError: @escaping @Sendable () -> String? = { nil },
        terminalColumns: Int? = nil
    ) {
        self.outputError = outputError
        self.writeOutput = writeOutput
        self.writeError = writeError
        self.environment = environment
        self.outputIsTerminal = outputIsTerminal
        self.errorIsTerminal = errorIsTerminal
        self.readFile = readFile
        self.transports = transports
        self.interrupts = interrupts
        self.terminalColumns = terminalColumns
    }

    /// Whether live progress lines (carriage return, cursor movement) may be drawn on standard error:
    /// it is a terminal and `TERM` is not `dumb`.
    public var mayRedrawErrorStream: Bool {
        errorIsTerminal && environment["TERM"] != "dumb"
    }

    /// Whether colour may be used on standard error: live lines are allowed and `NO_COLOR` is unset.
    public var mayColourErrorStream: Bool {
        mayRedrawErrorStream && environment["NO_COLOR"] == nil
    }
}
