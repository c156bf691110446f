public import DFUCore

/// An application with the Legacy DFU service for the buttonless jump (`01 04`):
/// DFU Version 0.1, or no version characteristic (SDK 6.1, recognised by its extra services).
public struct SimulatedLegacyApplication: SimulatedFirmware {
    /// Whether it has the DFU Version characteristic (reading 0.1).
    public var hasVersionCharacteristic = true
    /// The advertised name.
    public var advertisedName = "Nordic_Legacy_App"
    /// The UUIDs it uses.
    public var uuids = DFUServiceUUIDs()
    /// Other services of the application.
    public var otherServices: [SimulatedService] = [.other("0000180D-0000-1000-8000-00805F9B34FB")]

    /// A legacy application.
    public init(hasVersionCharacteristic: Bool = true) { self.hasVersionCharacteristic = hasVersionCharacteristic }

    /// The application's services plus the Legacy DFU service.
    public var services: [SimulatedService] {
        var characteristics = [
            SimulatedCharacteristic(uuid: uuids.legacyControlPoint, properties: [.write, .notify]),
            SimulatedCharacteristic(uuid: uuids.legacyPacket, properties: [.writeWithoutResponse]),
        ]
        if hasVersionCharacteristic {
            characteristics.append(SimulatedCharacteristic(uuid: uuids.legacyVersion, properties: [.read]))
        }
        return otherServices + [SimulatedService(uuid: uuids.legacyService, characteristics: characteristics)]
    }

    /// Whether its advertising lists the Legacy DFU service too (the nRF5 SDK examples list only their own; an
    /// application may add it, and `dfu scan` then connects to learn the mode).
    public var advertisesDFUService = false

    /// Its own services (and the Legacy DFU service with ``advertisesDFUService``).
    public var advertisedServiceUUIDs: [String] {
        otherServices.map(\.uuid) + (advertisesDFUService ? [uuids.legacyService.uppercased()] : [])
    }

    /// `01 04` reboots into the bootloader at the same address.
    public mutating func write(_ bytes: [UInt8], to characteristic: String, type: SimulatedWriteType,
                               context: inout SimulatedContext) -> SimulatedATTError? {
        guard characteristic.uppercased() == uuids.legacyControlPoint.uppercased() else { return .writeNotPermitted }
        guard context.subscribed.contains(uuids.legacyControlPoint.uppercased()) else { return .cccdImproperlyConfigured }
        if bytes.first == LegacyDFUOpCode.startDFU.rawValue {
            context.effects.append(.reboot(into: .bootloader(name: nil), after: .milliseconds(20)))
        }
        return nil
    }

    /// The DFU Version reads 0.1 (`01 00`).
    public mutating func read(_ characteristic: String, context: inout SimulatedContext) -> Result<[UInt8], SimulatedATTError> {
        guard hasVersionCharacteristic, characteristic.uppercased() == uuids.legacyVersion.uppercased() else {
            return .failure(.attributeNotFound)
        }
        return .success(LegacyDFUVersion.applicationWithButtonlessJump.bytes)
    }

    /// Nothing to do.
    public mutating func connectionDropped(context: inout SimulatedContext) {}
}
