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

    /// Whether the link ends when a pairing cannot give the SMP characteristic the security it needs (key
    /// `weak_pairing=disconnect`; default `bond`: the weaker bond is kept and the characteristic stays refused).
    /// Follows what a Zephyr server that needs authenticated keys was seen doing with a Just Works pairing in the
    /// field (issue 26, point 6): its log shows the link ended with reason 0x05, authentication failure, and no
    /// bond; which side ended the link was not read from the Zephyr or kernel sources, so only that is modelled.
    public var dropsWeakPairing = false

    /// Open: no security, Display Only, passkey 123456, a weak pairing bonded.
    public init() {}

    /// Whether a bond (authenticated or not) opens the SMP characteristic.
    public func admits(authenticated: Bool) -> Bool {
        security != .authenticated || authenticated
    }
}
