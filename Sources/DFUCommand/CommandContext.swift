/// Everything a command may touch in the outside world: its output streams, the environment and
/// the file system.
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

    /// Makes a context from its parts.
    public init(
        writeOutput: @escaping @Sendable (String) -> Void,
        writeError: @escaping @Sendable (String) -> Void,
        environment: [String: String] = [:],
        outputIsTerminal: Bool = false,
        errorIsTerminal: Bool = false,
        readFile: @escaping @Sendable (String) throws(FileReadError) -> [UInt8] = FileReader.read
    ) {
        self.writeOutput = writeOutput
        self.writeError = writeError
        self.environment = environment
        self.outputIsTerminal = outputIsTerminal
        self.errorIsTerminal = errorIsTerminal
        self.readFile = readFile
    }

    /// Whether colour and cursor movement may be used on standard error.
    public var mayDecorateErrorStream: Bool {
        errorIsTerminal && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
    }
}
