/// The Ver bits of an SMP header (zephyr `doc/services/device_mgmt/smp_protocol.rst`, "Frame: The
/// envelope"): 0 is the original protocol whose errors are a bare `rc`; 1 is SMP version 2, whose
/// group errors are `{"err": {"group", "rc"}}`. 2 and 3 are reserved.
public enum SMPVersion: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Version bits 0b00: errors as `{"rc": n}` (MGMT_ERR_*).
    case version1 = 0
    /// Version bits 0b01: group errors as `{"err": {"group": g, "rc": n}}`.
    case version2 = 1

    /// "SMP version 1" or "SMP version 2".
    public var description: String { self == .version1 ? "SMP version 1" : "SMP version 2" }
}
