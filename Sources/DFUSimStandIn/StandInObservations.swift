public import DBus
public import DFUCore

/// What the stand-in saw of its clients, in the order it happened: what bluetoothd's debug log (`bluetoothd -d`)
/// and btmon would show on a real host. Tests read it to check what a client did, beside the devices' own report.
public struct StandInObservations: Sendable, Equatable {
    /// A pairing agent as RegisterAgent registered it (`src/agent.c` `agent_create`).
    public struct Agent: Sendable, Hashable {
        /// The client (unique bus name) that registered it.
        public var owner: String
        /// Its object path in that client.
        public var path: ObjectPath
        /// Its IO capability as the client named it (`""`: KeyboardDisplay).
        public var capability: String
    }

    /// The address of every link that came up, in order (a device's address changes when it runs its bootloader
    /// at address + 1).
    public var links: [DFUDeviceAddress] = []
    /// Device1.Pair calls.
    public var pairCalls = 0
    /// What bluetoothd asked agents during pairings, by Agent1 member (`RequestPasskey`, `RequestConfirmation`,
    /// `RequestAuthorization`, `DisplayPasskey`).
    public var agentRequests: [String] = []
    /// Notifications and indications that reached a subscribed client (through an AcquireNotify socket or as
    /// PropertiesChanged of `Value`).
    public var notificationsDelivered = 0
    /// AcquireNotify calls whose CCCD write the device refused: bluetoothd 5.66 never answers those.
    public var refusedAcquireNotify = 0
    /// The agents registered now, by owner.
    public var agents: [Agent] = []

    public init() {}
}
