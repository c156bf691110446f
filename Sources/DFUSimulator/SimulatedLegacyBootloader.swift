import DFUCore
import DFUCrypto
import DFUFormats

/// A Legacy DFU bootloader (SDK 4.3–11): Start DFU with sizes, init packet, PRN receipts,
/// receive/validate/activate, 20-byte packets only.
///
/// Records a violation for any packet longer than 20 bytes (the real one drops it and stalls).
public struct SimulatedLegacyBootloader: SimulatedFirmware {
    /// The configuration.
    public let configuration: LegacyBootloaderConfiguration

    private enum Phase: Sendable, Hashable {
        case idle, awaitingSizes(UInt8?), started, receivingInit, awaitingInitCRC, initialized, receiving, received, validated
    }

    private var phase: Phase = .idle
    private var sizes: (softdevice: Int, bootloader: Int, application: Int) = (0, 0, 0)
    private var imageType: UInt8 = 0x04
    private var initPacket: [UInt8] = []
    private var image: [UInt8] = []
    private var prn = 0
    private var packetCount = 0

    /// A bootloader in DFU mode.
    public init(configuration: LegacyBootloaderConfiguration = LegacyBootloaderConfiguration()) {
        self.configuration = configuration
    }

    private var controlPoint: String { configuration.uuids.legacyControlPoint.uppercased() }
    private var packet: String { configuration.uuids.legacyPacket.uppercased() }
    private var versionUUID: String { configuration.uuids.legacyVersion.uppercased() }

    /// The name it advertises.
    public var advertisedName: String { configuration.name }

    /// The Legacy DFU service (1530), after any other services of the configuration.
    public var services: [SimulatedService] {
        var characteristics = [
            SimulatedCharacteristic(uuid: controlPoint, properties: [.write, .notify]),
            SimulatedCharacteristic(uuid: packet, properties: [.writeWithoutResponse]),
        ]
        if configuration.version != nil {
            characteristics.append(SimulatedCharacteristic(uuid: versionUUID, properties: [.read]))
        }
        return configuration.otherServices
            + [SimulatedService(uuid: configuration.uuids.legacyService, characteristics: characteristics)]
    }

    /// 1530.
    public var advertisedServiceUUIDs: [String] { [configuration.uuids.legacyService.uppercased()] }

    private var total: Int { sizes.softdevice + sizes.bootloader + sizes.application }

    /// Handles control point requests and packets.
    public mutating func write(_ bytes: [UInt8], to characteristic: String, type: SimulatedWriteType,
                               context: inout SimulatedContext) -> SimulatedATTError? {
        let uuid = characteristic.uppercased()
        if uuid == packet {
            if bytes.count > LegacyDFUStateMachine.packetSize {
                context.violations.append("legacy packet of \(bytes.count) bytes (the bootloader takes at most 20)")
                return nil
            }
            receivePacket(bytes, context: &context)
            return nil
        }
        guard uuid == controlPoint else { return .writeNotPermitted }
        guard context.subscribed.contains(controlPoint) else { return .cccdImproperlyConfigured }
        if configuration.neverAnswers { return nil }
        handleRequest(bytes, context: &context)
        return nil
    }

    /// The DFU Version.
    public mutating func read(_ characteristic: String, context: inout SimulatedContext) -> Result<[UInt8], SimulatedATTError> {
        guard characteristic.uppercased() == versionUUID, let version = configuration.version else {
            return .failure(.attributeNotFound)
        }
        return .success(version.bytes)
    }

    /// A transfer cut off leaves the bootloader in "invalid state" until Reset.
    public mutating func connectionDropped(context: inout SimulatedContext) {
        if phase != .idle { context.storage.legacyTransferInterrupted = true }
        prn = 0
    }

    private func respond(_ op: LegacyDFUOpCode, _ status: LegacyDFUStatus, context: inout SimulatedContext) {
        context.notify(controlPoint, [LegacyDFUOpCode.response.rawValue, op.rawValue, status.rawValue])
    }

    private mutating func handleRequest(_ bytes: [UInt8], context: inout SimulatedContext) {
        guard let first = bytes.first else { return }
        let op = LegacyDFUOpCode(rawValue: first)
        switch op {
        case .startDFU:
            phase = .awaitingSizes(bytes.count >= 2 ? bytes[1] : nil)
        case .initialize:
            if bytes.count >= 2, bytes[1] == 0x01 {
                guard phase == .receivingInit else { return respond(op, .invalidState, context: &context) }
                validateInit(context: &context)
            } else if bytes.count >= 2 {
                guard phase == .started else { return respond(op, .invalidState, context: &context) }
                initPacket = []
                phase = .receivingInit
            } else {
                guard phase == .started else { return respond(op, .invalidState, context: &context) }
                initPacket = []
                phase = .awaitingInitCRC
            }
        case .packetReceiptRequest:
            var reader = ByteReader(Array(bytes.dropFirst()))
            prn = Int(reader.readInteger(as: UInt16.self) ?? 0)
        case .receiveFirmware:
            guard phase == .started || phase == .initialized else { return respond(op, .invalidState, context: &context) }
            image = []
            packetCount = 0
            phase = .receiving
        case .validate:
            guard phase == .received else { return respond(op, .invalidState, context: &context) }
            if imageMatchesInitPacket() {
                phase = .validated
                respond(op, .success, context: &context)
            } else {
                respond(op, .crcError, context: &context)
            }
        case .activateAndReset:
            guard phase == .validated else { return respond(op, .invalidState, context: &context) }
            install(into: &context.storage)
            phase = .idle
            context.effects.append(.reboot(into: .application, after: .milliseconds(20)))
        case .reset:
            // Reset abandons the transfer; Start DFU already invalidated the application, so the
            // device comes back in DFU mode.
            phase = .idle
            context.storage.legacyTransferInterrupted = false
            context.effects.append(.reboot(into: .bootloader(name: nil), after: .milliseconds(20)))
        default:
            respond(op, .notSupported, context: &context)
        }
    }

    private mutating func receivePacket(_ bytes: [UInt8], context: inout SimulatedContext) {
        switch phase {
        case .awaitingSizes(let type):
            var reader = ByteReader(bytes)
            if type == nil {
                guard let app = reader.readInteger(as: UInt32.self) else { return respond(.startDFU, .operationFailed, context: &context) }
                sizes = (0, 0, Int(app))
                imageType = 0x04
            } else {
                guard let sd = reader.readInteger(as: UInt32.self), let bl = reader.readInteger(as: UInt32.self), let app = reader.readInteger(as: UInt32.self) else {
                    return respond(.startDFU, .operationFailed, context: &context)
                }
                sizes = (Int(sd), Int(bl), Int(app))
                imageType = type ?? 0x04
            }
            if context.storage.legacyTransferInterrupted { return respond(.startDFU, .invalidState, context: &context) }
            if configuration.originalStartOnly, type != nil { return respond(.startDFU, .notSupported, context: &context) }
            if configuration.unsupportedImageTypes.contains(imageType) { return respond(.startDFU, .notSupported, context: &context) }
            if total == 0 || total > configuration.maximumImageSize {
                return respond(.startDFU, .dataSizeExceedsLimit, context: &context)
            }
            phase = .started
            respond(.startDFU, .success, context: &context)
        case .receivingInit:
            initPacket += bytes
        case .awaitingInitCRC:
            initPacket += bytes
            if initPacket.count >= 2 {
                phase = .initialized
                respond(.initialize, .success, context: &context)
            }
        case .receiving:
            image += bytes
            packetCount += 1
            if image.count >= total {
                phase = .received
                respond(.receiveFirmware, image.count == total ? .success : .dataSizeExceedsLimit, context: &context)
            } else if prn > 0, packetCount % prn == 0 {
                var writer = ByteWriter()
                writer.writeInteger(LegacyDFUOpCode.packetReceipt.rawValue)
                writer.writeInteger(UInt32(image.count))
                context.notify(controlPoint, writer.bytes)
            }
        default:
            context.violations.append("legacy packet written while no transfer expects one")
        }
    }

    private mutating func validateInit(context: inout SimulatedContext) {
        guard let parsed = try? LegacyInitPacket(bytes: initPacket, dfuVersion: nil) else {
            return respond(.initialize, .operationFailed, context: &context)
        }
        if let header = parsed.header {
            let installed = UInt16(truncatingIfNeeded: context.storage.softdeviceID)
            let accepted = header.softdeviceRequirements
            guard accepted.contains(0xFFFE) || accepted.contains(installed) else {
                return respond(.initialize, .operationFailed, context: &context)
            }
        }
        phase = .initialized
        respond(.initialize, .success, context: &context)
    }

    private func imageMatchesInitPacket() -> Bool {
        guard !initPacket.isEmpty, let parsed = try? LegacyInitPacket(bytes: initPacket, dfuVersion: nil) else { return true }
        switch parsed.integrity {
        case .crc16(let crc): return crc == CRC16.checksum(image)
        case .sha256(let length, let hash), .signedSHA256(let length, let hash, _):
            return Int(length) == image.count && hash == SHA256.digest(image)
        }
    }

    private func install(into storage: inout SimulatedStorage) {
        let sd = sizes.softdevice
        let bl = sizes.bootloader
        if sd > 0 {
            storage.softdevice = Array(image[0..<sd])
            storage.softdeviceID = storage.softdeviceIDAfterUpdate
            storage.application = nil
        }
        if bl > 0 { storage.bootloader = Array(image[sd..<(sd + bl)]) }
        if sizes.application > 0 { storage.application = Array(image[(sd + bl)...]) }
    }
}
