public import DFUCore

/// How a link opened through a ``TransportProvider`` moves its data and pairs, as the command line asked.
public struct LinkPreferences: Sendable, Hashable {
    /// Whether the stack may hand out sockets for packets and notifications (BlueZ's AcquireWrite
    /// and AcquireNotify). False (`--no-acquire`): every packet is a WriteValue (type=command) and
    /// every notification a PropertiesChanged signal.
    public var acquiresSockets = true
    /// The passkey to answer a device's pairing request with (`--passkey`).
    public var passkey: UInt32?
    /// Asks for the passkey when none was given (on a terminal); nil: a device that wants one cannot pair.
    public var passkeyPrompt: DFUPasskeyPrompt?

    /// The defaults: sockets where the stack offers them, Just Works pairing only.
    public init(acquiresSockets: Bool = true, passkey: UInt32? = nil, passkeyPrompt: DFUPasskeyPrompt? = nil) {
        self.acquiresSockets = acquiresSockets
        self.passkey = passkey
        self.passkeyPrompt = passkeyPrompt
    }
}
