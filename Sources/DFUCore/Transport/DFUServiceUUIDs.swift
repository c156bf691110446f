/// The GATT UUIDs of every DFU role; each can be replaced for custom firmware.
public struct DFUServiceUUIDs: Sendable, Hashable {
    /// Secure DFU service (FE59).
    public var secureService = "0000FE59-0000-1000-8000-00805F9B34FB"
    /// Secure DFU Control Point.
    public var secureControlPoint = "8EC90001-F315-4F60-9FB8-838830DAEA50"
    /// Secure DFU Packet.
    public var securePacket = "8EC90002-F315-4F60-9FB8-838830DAEA50"
    /// Buttonless without bonds (inside the Secure service).
    public var buttonlessWithoutBonds = "8EC90003-F315-4F60-9FB8-838830DAEA50"
    /// Buttonless with bonds (inside the Secure service).
    public var buttonlessWithBonds = "8EC90004-F315-4F60-9FB8-838830DAEA50"
    /// Experimental buttonless service (SDK 12).
    public var experimentalButtonlessService = "8E400001-F315-4F60-9FB8-838830DAEA50"
    /// Experimental buttonless characteristic (SDK 12).
    public var experimentalButtonlessCharacteristic = "8E400001-F315-4F60-9FB8-838830DAEA50"
    /// Legacy DFU service.
    public var legacyService = "00001530-1212-EFDE-1523-785FEABCD123"
    /// Legacy DFU Control Point.
    public var legacyControlPoint = "00001531-1212-EFDE-1523-785FEABCD123"
    /// Legacy DFU Packet.
    public var legacyPacket = "00001532-1212-EFDE-1523-785FEABCD123"
    /// Legacy DFU Version.
    public var legacyVersion = "00001534-1212-EFDE-1523-785FEABCD123"
    /// The SMP service of MCUmgr (zephyr `doc/services/device_mgmt/smp_transport.rst`; `SMP_BT_SVC_UUID`
    /// in `include/zephyr/mgmt/mcumgr/transport/smp_bt.h`).
    public var smpService = "8D53DC1D-1DB7-4CD3-868B-8A527460AA84"
    /// The SMP characteristic (`SMP_BT_CHR_UUID`): write without response, notify.
    public var smpCharacteristic = "DA2E7828-FBCE-4E01-AE9E-261174997C48"

    /// Nordic's standard UUIDs.
    public init() {}

    /// The (service, characteristic) UUIDs of an endpoint.
    public func uuids(of endpoint: DFUEndpoint) -> (service: String, characteristic: String) {
        switch endpoint {
        case .secureControlPoint: (secureService, secureControlPoint)
        case .securePacket: (secureService, securePacket)
        case .buttonlessWithoutBonds: (secureService, buttonlessWithoutBonds)
        case .buttonlessWithBonds: (secureService, buttonlessWithBonds)
        case .buttonlessExperimental: (experimentalButtonlessService, experimentalButtonlessCharacteristic)
        case .legacyControlPoint: (legacyService, legacyControlPoint)
        case .legacyPacket: (legacyService, legacyPacket)
        case .legacyVersion: (legacyService, legacyVersion)
        case .smp: (smpService, smpCharacteristic)
        }
    }

    /// The service UUIDs a bootloader advertises (Secure and Legacy), used to find it by scanning.
    public var bootloaderServices: [String] { [secureService, legacyService] }
}
