/// A logical DFU characteristic; the transport maps it to a GATT characteristic through ``DFUServiceUUIDs``.
public enum DFUEndpoint: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Secure DFU Control Point (8EC90001): write with response, notify.
    case secureControlPoint
    /// Secure DFU Packet (8EC90002): write without response.
    case securePacket
    /// Legacy DFU Control Point (1531): write with response, notify.
    case legacyControlPoint
    /// Legacy DFU Packet (1532): write without response.
    case legacyPacket
    /// Legacy DFU Version (1534): read.
    case legacyVersion
    /// Buttonless without bonds (8EC90003): write, indicate.
    case buttonlessWithoutBonds
    /// Buttonless with bonds (8EC90004): write, indicate.
    case buttonlessWithBonds
    /// Experimental buttonless of SDK 12 (8E400001): write, notify.
    case buttonlessExperimental
    /// The SMP (MCUmgr) characteristic of nRF Connect SDK / Zephyr devices (DA2E7828): write without
    /// response, notify; frames longer than one ATT packet are split across packets.
    case smp

    /// The role in words.
    public var description: String {
        switch self {
        case .secureControlPoint: "Secure DFU Control Point"
        case .securePacket: "Secure DFU Packet"
        case .legacyControlPoint: "Legacy DFU Control Point"
        case .legacyPacket: "Legacy DFU Packet"
        case .legacyVersion: "Legacy DFU Version"
        case .buttonlessWithoutBonds: "Buttonless DFU without bonds"
        case .buttonlessWithBonds: "Buttonless DFU with bonds"
        case .buttonlessExperimental: "experimental Buttonless DFU"
        case .smp: "SMP (MCUmgr)"
        }
    }
}
