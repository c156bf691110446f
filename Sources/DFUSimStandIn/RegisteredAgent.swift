import DBus

/// A client's pairing agent (org.bluez.Agent1), as RegisterAgent gave it.
struct RegisteredAgent: Sendable, Equatable {
    /// Its object path in the client.
    let path: ObjectPath
    /// Its IO capability.
    let capability: PairingMethod.Capability
}
