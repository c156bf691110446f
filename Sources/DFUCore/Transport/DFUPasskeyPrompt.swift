/// Asks a person for the passkey a device shows while pairing (the command line supplies it when
/// standard input is a terminal). Compared by identity.
public final class DFUPasskeyPrompt: Sendable, Hashable {
    /// Returns the six-digit passkey (0–999999) for the device at `address`, or nil when none was
    /// given; it may wait for the person, and should stop waiting when its task is cancelled (the
    /// pairing was given up).
    public let ask: @Sendable (_ address: DFUDeviceAddress) async -> UInt32?

    /// Makes a prompt.
    public init(_ ask: @escaping @Sendable (_ address: DFUDeviceAddress) async -> UInt32?) {
        self.ask = ask
    }

    public static func == (lhs: DFUPasskeyPrompt, rhs: DFUPasskeyPrompt) -> Bool { lhs === rhs }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
