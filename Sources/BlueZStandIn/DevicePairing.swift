/// How a simulated SMP device pairs and what its SMP characteristic needs (`--device` keys `security`, `io`,
/// `passkey`).
///
/// Zephyr's `smp_bt.c` gives the SMP characteristic write permission and its CCCD read and write permission
/// at the level `CONFIG_MCUMGR_TRANSPORT_BT_PERM_RW*` chooses: none, `_ENCRYPT` (any bond) or `_AUTHEN`
/// (a bond made with MITM protection: passkey or numeric comparison, not Just Works), `SMP_GATT_PERM`.
public struct DevicePairing: Sendable, Equatable {
    /// What the SMP characteristic needs.
    public enum Security: String, Sendable, CaseIterable {
        /// `CONFIG_MCUMGR_TRANSPORT_BT_PERM_RW`: open.
        case none
        /// `CONFIG_MCUMGR_TRANSPORT_BT_PERM_RW_ENCRYPT`: an encrypted link (any pairing).
        case encrypted
        /// `CONFIG_MCUMGR_TRANSPORT_BT_PERM_RW_AUTHEN`: an encrypted link with authenticated keys.
        case authenticated
    }

    /// What the SMP characteristic needs.
    public var security = Security.none
    /// The device's IO capability (Zephyr's, from the `bt_conn_auth_cb` callbacks its firmware registers).
    public var capability = PairingMethod.Capability.displayOnly
    /// The passkey it shows (or types, when the host shows one).
    public var passkey: UInt32 = 123_456

    /// Whether a bond (authenticated or not) opens the SMP characteristic.
    public func admits(authenticated: Bool) -> Bool {
        security != .authenticated || authenticated
    }
}
