public import DFUCore
import DFUFormats

/// An application in app mode with a buttonless DFU characteristic (without bonds, with bonds, experimental).
public struct SimulatedButtonlessApplication: SimulatedFirmware {
    /// Which variant it exposes.
    public let variant: ButtonlessVariant
    /// Whether "set advertising name" is understood (SDK 14+; SDK 13 answers "not supported").
    public var supportsNaming = true
    /// Fault: the buttonless async interface was not initialised, so 0x02 reboots without answering.
    public var rebootsOnNaming = false
    /// The advertised name.
    public var advertisedName = "Nordic_App"
    /// The UUIDs it uses.
    public var uuids = DFUServiceUUIDs()
    /// Other services of the application (e.g. Heart Rate).
    public var otherServices: [SimulatedService] = [.other("0000180D-0000-1000-8000-00805F9B34FB")]

    private var pendingName: String?

    /// An application with `variant`.
    public init(variant: ButtonlessVariant) { self.variant = variant }

    private var characteristic: String { uuids.uuids(of: variant.endpoint).characteristic.uppercased() }

    /// The buttonless service plus the application's own.
    public var services: [SimulatedService] {
        let dfu: SimulatedService
        switch variant {
        case .experimental:
            dfu = SimulatedService(uuid: uuids.experimentalButtonlessService, characteristics: [
                SimulatedCharacteristic(uuid: characteristic, properties: [.write, .notify])])
        case .withoutBonds, .withBonds:
            // Write and indicate, read access open (SDK 15–17 `ble_dfu_bonded.c`/`ble_dfu_unbonded.c`
            // `ble_dfu_buttonless_char_add`).
            dfu = SimulatedService(uuid: uuids.secureService, characteristics: [
                SimulatedCharacteristic(uuid: characteristic, properties: [.write, .indicate], readable: true)])
        }
        return otherServices + [dfu]
    }

    /// Applications advertise their own services, not DFU.
    public var advertisedServiceUUIDs: [String] { otherServices.map(\.uuid) }

    /// Handles `01` (enter) and `02 <len> <name>` (set name).
    public mutating func write(_ bytes: [UInt8], to characteristic: String, type: SimulatedWriteType,
                               context: inout SimulatedContext) -> SimulatedATTError? {
        guard characteristic.uppercased() == self.characteristic else { return .attributeNotFound }
        guard context.subscribed.contains(self.characteristic) else { return .cccdImproperlyConfigured }
        guard let op = bytes.first else { return nil }
        if variant == .withBonds, !context.isBonded {
            context.notify(self.characteristic, [0x20, op, ButtonlessStatus.notBonded.rawValue])
            return nil
        }
        switch op {
        case 0x01:
            context.notify(self.characteristic, [0x20, 0x01, ButtonlessStatus.success.rawValue])
            context.effects.append(.reboot(into: .bootloader(name: pendingName), after: .milliseconds(40)))
        case 0x02 where variant == .withoutBonds && supportsNaming:
            if rebootsOnNaming {
                context.effects.append(.reboot(into: .application, after: .zero))
                return nil
            }
            var reader = ByteReader(Array(bytes.dropFirst()))
            guard let length = reader.readByte(), length > 0, length <= 20, let name = reader.readBytes(length: Int(length)),
                let text = String(validating: name, as: UTF8.self)
            else {
                context.notify(self.characteristic, [0x20, 0x02, ButtonlessStatus.invalidAdvertisementName.rawValue])
                return nil
            }
            pendingName = text
            context.notify(self.characteristic, [0x20, 0x02, ButtonlessStatus.success.rawValue])
        default:
            context.notify(self.characteristic, [0x20, op, ButtonlessStatus.opCodeNotSupported.rawValue])
        }
        return nil
    }

    /// Nothing is readable.
    public mutating func read(_ characteristic: String, context: inout SimulatedContext) -> Result<[UInt8], SimulatedATTError> {
        .failure(.attributeNotFound)
    }

    /// Nothing to do.
    public mutating func connectionDropped(context: inout SimulatedContext) {}
}
