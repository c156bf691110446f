/// How a link opened through a ``TransportProvider`` moves its data, as the command line asked.
public struct LinkPreferences: Sendable, Hashable {
    /// Whether the stack may hand out sockets for packets and notifications (BlueZ's AcquireWrite
    /// and AcquireNotify). False (`--no-acquire`): every packet is a WriteValue (type=command) and
    /// every notification a PropertiesChanged signal.
    public var acquiresSockets = true

    /// The defaults: sockets where the stack offers them.
    public init(acquiresSockets: Bool = true) {
        self.acquiresSockets = acquiresSockets
    }
}
