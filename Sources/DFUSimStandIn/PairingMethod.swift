/// How an LE pairing authenticates, from the two sides' IO capabilities: the table of the Bluetooth Core
/// specification (Vol 3, Part H, 2.3.5.1, LE Secure Connections, which Zephyr and BlueZ both use), as the
/// Linux kernel's SMP applies it for the host (`net/bluetooth/smp.c` `get_auth_method`; not read here, the
/// table is the specification's). The host's capability is its agent's (BlueZ 5.66 `src/agent.c`
/// `parse_io_capability`: an empty string is KeyboardDisplay; no agent is NoInputNoOutput, `src/device.c`
/// `pair_device`).
public enum PairingMethod: Sendable, Equatable {
    /// No user step; encrypts, but without protection against a man in the middle.
    case justWorks
    /// The device shows a passkey the host's user types (the agent's RequestPasskey).
    case passkeyEnteredOnHost
    /// The host shows a passkey the device's user types (the agent's DisplayPasskey).
    case passkeyShownOnHost
    /// Both show a number and the user confirms they match (the agent's RequestConfirmation).
    case numericComparison

    /// Whether the keys it makes are authenticated (MITM protection: security level 3).
    public var isAuthenticated: Bool { self != .justWorks }

    /// An IO capability, by BlueZ's agent capability names.
    public enum Capability: String, Sendable, CaseIterable {
        case displayOnly = "DisplayOnly"
        case displayYesNo = "DisplayYesNo"
        case keyboardOnly = "KeyboardOnly"
        case noInputNoOutput = "NoInputNoOutput"
        case keyboardDisplay = "KeyboardDisplay"

        /// BlueZ's name, or `""` for KeyboardDisplay (RegisterAgent's default).
        public init?(agentCapability text: String) {
            if text.isEmpty {
                self = .keyboardDisplay
                return
            }
            self.init(rawValue: text)
        }

        /// A spec value: BlueZ's name or its words with dashes (`display-only`), any case.
        public init?(spec text: String) {
            let folded = text.lowercased().filter { $0 != "-" && $0 != "_" }
            guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == folded }) else { return nil }
            self = match
        }
    }

    /// The method when the host (`initiator`) pairs with the device (`responder`), and one side asks for MITM
    /// protection (else it is Just Works whatever the capabilities).
    public init(initiator: Capability, responder: Capability) {
        switch (initiator, responder) {
        case (.noInputNoOutput, _), (_, .noInputNoOutput): self = .justWorks
        case (.displayOnly, .displayOnly), (.displayOnly, .displayYesNo), (.displayYesNo, .displayOnly): self = .justWorks
        case (.displayOnly, .keyboardOnly), (.displayOnly, .keyboardDisplay), (.displayYesNo, .keyboardOnly):
            self = .passkeyShownOnHost
        case (.keyboardOnly, .displayOnly), (.keyboardOnly, .displayYesNo), (.keyboardOnly, .keyboardDisplay),
            (.keyboardDisplay, .displayOnly), (.keyboardOnly, .keyboardOnly):
            self = .passkeyEnteredOnHost
        case (.keyboardDisplay, .keyboardOnly): self = .passkeyShownOnHost
        case (.displayYesNo, .displayYesNo), (.displayYesNo, .keyboardDisplay), (.keyboardDisplay, .displayYesNo),
            (.keyboardDisplay, .keyboardDisplay):
            self = .numericComparison
        }
    }
}
