/// A method of an exported interface: its arguments and the code that answers it.
public struct DBusMethod: Sendable {
    /// Answers one call: receives the whole call message and returns the reply arguments.
    ///
    /// It starts on the connection's event loop thread (the task prefers the loop as its executor), so
    /// it must not block; it may await anything.
    ///
    /// Throwing a ``DBusError`` sends that error (name and message) to the caller; any other
    /// error is sent as `org.freedesktop.DBus.Error.Failed` with its description.
    public typealias Handler = @Sendable (DBusMessage) async throws -> [DBusValue]

    /// The method name.
    public var name: MemberName
    /// The input arguments; a call whose arguments do not match them gets `InvalidArgs`.
    public var inputs: [DBusArgument]
    /// The output arguments; the handler's return values must match them.
    public var outputs: [DBusArgument]
    /// Whether calls may start before earlier calls to this connection finish.
    ///
    /// By default incoming calls are answered one at a time in arrival order (as a
    /// single-threaded daemon would). A handler that waits for another incoming call to
    /// be answered must be concurrent, or it would wait for itself.
    public var runsConcurrently: Bool
    /// The code that answers calls.
    public var handler: Handler

    /// Describes a method and its handler.
    public init(
        _ name: MemberName,
        inputs: [DBusArgument] = [],
        outputs: [DBusArgument] = [],
        runsConcurrently: Bool = false,
        handler: @escaping Handler
    ) {
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self.runsConcurrently = runsConcurrently
        self.handler = handler
    }

    var inputSignature: String { inputs.map(\.signature.rawValue).joined() }
    var outputSignature: String { outputs.map(\.signature.rawValue).joined() }
}
