/// How a link opened through a ``TransportProvider`` moves its data, as the command line asked.
public struct LinkPreferences: Sendable, Hashable {
    /// Whether the stack may hand out sockets for packets and notifications (BlueZ's AcquireWrite
    /// and AcquireNotify). False (`--no-acquire`): every packet is a WriteValue (type=command) and
    /// every notification a PropertiesChanged signal.
    public var acquiresSockets = true
    /// The passkey to answer with when the device asks for one while pairing (`--passkey`, 0 to 999999);
    /// nil: the stack asks on a terminal, or pairing by passkey fails.
    public var passkey: UInt32?

    /// The defaults: sockets where the stack offers them, no passkey.
    public init(acquiresSockets: Bool = true, passkey: UInt32? = nil) {
        self.acquiresSockets = acquiresSockets
        self.passkey = passkey
    }
}
