import DFUCore
import DFUCrypto
import DFUFormats

/// A Secure DFU bootloader that behaves like nRF5 SDK 15–17's, for tests and `dfu-sim`.
///
/// It keeps its transfer state across reconnections (as the real one keeps it in RAM and settings)
/// so clients can resume, models 17 receive buffers drained by a flash model, and records
/// protocol violations: executing an unverified object, writing past an object's announced size.
public struct SimulatedSecureBootloader: SimulatedFirmware {
    /// The configuration.
    public let configuration: SecureBootloaderConfiguration
    /// The advertised name (DfuTarg or the name set through buttonless).
    public let advertisedName: String

    private var currentType: SecureDFUObjectType?
    private var prnTarget: UInt16 = 0
    private var prnCounter = 0

    private var command: [UInt8] = []
    private var commandSize = 0
    private var commandCreatedFresh = false
    private var initCommand: SecureInitCommand?

    private var received: [UInt8] = []
    private var receivedCRC = CRC32()
    private var lastExecuted = 0
    private var lastExecutedCRC: UInt32 = 0
    private var objectStart = 0
    private var objectSize = 0
    private var objectOpen = false
    private var verified: Set<SecureDFUObjectType> = []

    private var bufferReleaseTimes: [Duration] = []
    private var flashBusyUntil: Duration = .zero
    private var preparedBank = false

    /// Packets dropped because every receive buffer was busy.
    public private(set) var droppedPackets = 0

    /// A bootloader in DFU mode advertising `name` (nil: the default name).
    public init(configuration: SecureBootloaderConfiguration = SecureBootloaderConfiguration(), name: String? = nil) {
        self.configuration = configuration
        self.advertisedName = name ?? configuration.defaultName
    }

    private var controlPoint: String { configuration.uuids.secureControlPoint.uppercased() }
    private var packet: String { configuration.uuids.securePacket.uppercased() }

    /// FE59 with the Packet (write without response only) added before the Control Point (write,
    /// notify), neither readable (SDK 15–17 `nrf_dfu_ble.c` `ble_dfu_init`: `dfu_pkt_char_add`, then
    /// `dfu_ctrl_pt_add`).
    public var services: [SimulatedService] {
        [SimulatedService(uuid: configuration.uuids.secureService, characteristics: [
            SimulatedCharacteristic(uuid: packet, properties: [.writeWithoutResponse]),
            SimulatedCharacteristic(uuid: controlPoint, properties: [.write, .notify]),
        ])]
    }

    /// FE59.
    public var advertisedServiceUUIDs: [String] { [configuration.uuids.secureService.uppercased()] }

    /// Handles control point requests and packet writes.
    public mutating func write(_ bytes: [UInt8], to characteristic: String, type: SimulatedWriteType,
                               context: inout SimulatedContext) -> SimulatedATTError? {
        let uuid = characteristic.uppercased()
        if uuid == packet {
            receivePacket(bytes, context: &context)
            return nil
        }
        guard uuid == controlPoint else { return .attributeNotFound }
        guard context.subscribed.contains(controlPoint) else { return .cccdImproperlyConfigured }
        if configuration.neverAnswers { return nil }
        handleRequest(bytes, context: &context)
        return nil
    }

    /// Nothing is readable.
    public mutating func read(_ characteristic: String, context: inout SimulatedContext) -> Result<[UInt8], SimulatedATTError> {
        .failure(.attributeNotFound)
    }

    /// The transfer state survives the link loss.
    public mutating func connectionDropped(context: inout SimulatedContext) {
        prnTarget = 0
        prnCounter = 0
        if configuration.reportsOnlyFullPagesAfterLinkLoss, received.count > lastExecuted {
            received.removeLast(received.count - lastExecuted)
            receivedCRC = CRC32(continuingFrom: lastExecutedCRC)
            objectOpen = false
        }
    }

    // MARK: - Requests

    private mutating func respond(_ op: SecureDFUOpCode, _ result: SecureDFUResultCode, payload: [UInt8] = [],
                                  extended: SecureDFUExtendedError? = nil, after delay: Duration = .zero,
                                  context: inout SimulatedContext) {
        var frame: [UInt8] = [SecureDFUOpCode.response.rawValue, op.rawValue, result.rawValue]
        if let extended { frame.append(extended.rawValue) }
        context.notify(controlPoint, frame + payload, after: delay)
    }

    private static func offsetAndCRC(_ offset: Int, _ crc: UInt32) -> [UInt8] {
        var writer = ByteWriter()
        writer.writeInteger(UInt32(offset))
        writer.writeInteger(crc)
        return writer.bytes
    }

    private mutating func handleRequest(_ bytes: [UInt8], context: inout SimulatedContext) {
        var reader = ByteReader(bytes)
        guard let raw = reader.readByte() else {
            respond(.protocolVersion, .invalidCode, context: &context)
            return
        }
        let op = SecureDFUOpCode(rawValue: raw)
        switch op {
        case .selectObject:
            guard let typeByte = reader.readByte(), let type = SecureDFUObjectType(rawValue: typeByte) else {
                respond(op, .unsupportedType, context: &context)
                return
            }
            currentType = type
            verified.insert(type)
            var writer = ByteWriter()
            if type == .command {
                writer.writeInteger(UInt32(configuration.commandObjectMaxSize))
                writer.writeBytes(Self.offsetAndCRC(command.count, CRC32.checksum(command)))
            } else {
                writer.writeInteger(UInt32(configuration.dataObjectMaxSize))
                writer.writeBytes(Self.offsetAndCRC(received.count, receivedCRC.value))
            }
            respond(op, .success, payload: writer.bytes, context: &context)
        case .createObject:
            guard let typeByte = reader.readByte(), let size = reader.readInteger(as: UInt32.self) else {
                respond(op, .invalidParameter, context: &context)
                return
            }
            guard let type = SecureDFUObjectType(rawValue: typeByte) else {
                respond(op, .unsupportedType, context: &context)
                return
            }
            create(type, size: Int(size), context: &context)
        case .setPRN:
            guard let value = reader.readInteger(as: UInt16.self) else {
                respond(op, .invalidParameter, context: &context)
                return
            }
            prnTarget = value
            prnCounter = 0
            respond(op, .success, context: &context)
        case .calculateChecksum:
            if let currentType { verified.insert(currentType) }
            let payload = currentType == .command ? Self.offsetAndCRC(command.count, CRC32.checksum(command))
                : Self.offsetAndCRC(received.count, receivedCRC.value)
            respond(op, .success, payload: payload, context: &context)
        case .execute:
            execute(context: &context)
        case .abort where configuration.supportsAbort:
            respond(op, .success, context: &context)
            context.effects.append(.reboot(into: .application, after: .milliseconds(30)))
        default:
            respond(op, .opCodeNotSupported, context: &context)
        }
    }

    private mutating func create(_ type: SecureDFUObjectType, size: Int, context: inout SimulatedContext) {
        currentType = type
        prnCounter = 0
        verified.remove(type)
        switch type {
        case .command:
            guard size > 0 else { return respond(.createObject, .invalidParameter, context: &context) }
            guard size <= configuration.commandObjectMaxSize else {
                return respond(.createObject, .insufficientResources, context: &context)
            }
            command = []
            commandSize = size
            commandCreatedFresh = true
            initCommand = nil
            respond(.createObject, .success, context: &context)
        case .data:
            // The checks of SDK 15–17 `on_data_obj_create_request`, in its order.
            guard let initCommand else { return respond(.createObject, .operationNotPermitted, context: &context) }
            guard size > 0 else { return respond(.createObject, .invalidParameter, context: &context) }
            guard size % 4096 == 0 || lastExecuted + size == initCommand.imageSize else {
                // Only the last object may be shorter than a page.
                return respond(.createObject, .invalidParameter, context: &context)
            }
            guard size <= configuration.dataObjectMaxSize else {
                return respond(.createObject, .insufficientResources, context: &context)
            }
            guard lastExecuted + size <= initCommand.imageSize else {
                return respond(.createObject, .operationNotPermitted, context: &context)
            }
            // A new object starts at the end of the last executed one; anything after it is discarded.
            received.removeLast(received.count - lastExecuted)
            receivedCRC = CRC32(continuingFrom: lastExecutedCRC)
            objectStart = lastExecuted
            objectSize = size
            objectOpen = true
            let start = max(context.now, flashBusyUntil)
            var erase = context.flash.pageErase
            if !preparedBank {
                preparedBank = true
                erase += context.flash.firstObjectPreparation
            }
            flashBusyUntil = start + erase
            respond(.createObject, .success, context: &context)
        }
    }

    private mutating func receivePacket(_ bytes: [UInt8], context: inout SimulatedContext) {
        guard let currentType else {
            context.violations.append("packet written before any object was selected or created")
            return
        }
        bufferReleaseTimes.removeAll { $0 <= context.now }
        guard bufferReleaseTimes.count < configuration.receiveBuffers else {
            droppedPackets += 1
            return
        }
        verified.remove(currentType)
        switch currentType {
        case .command:
            guard command.count + bytes.count <= commandSize else {
                context.violations.append("wrote \(command.count + bytes.count) bytes into a command object created with \(commandSize)")
                return
            }
            command += bytes
        case .data:
            guard objectOpen, received.count + bytes.count <= objectStart + objectSize else {
                context.violations.append("wrote past the announced data object size (object at \(objectStart), size \(objectSize), writing \(bytes.count) bytes at \(received.count))")
                return
            }
            received += bytes
            receivedCRC.update(bytes)
            let start = max(context.now, flashBusyUntil)
            flashBusyUntil = start + context.flash.writeTime(bytes: bytes.count)
            bufferReleaseTimes.append(flashBusyUntil)
        }
        prnCounter += 1
        if prnTarget > 0, prnCounter % Int(prnTarget) == 0 {
            let payload = currentType == .command ? Self.offsetAndCRC(command.count, CRC32.checksum(command))
                : Self.offsetAndCRC(received.count, receivedCRC.value)
            respond(.calculateChecksum, .success, payload: payload, context: &context)
        }
    }

    private mutating func execute(context: inout SimulatedContext) {
        guard let type = currentType else { return respond(.execute, .operationNotPermitted, context: &context) }
        if !verified.contains(type) {
            context.violations.append("executed the \(type) without verifying its checksum first")
        }
        switch type {
        case .command:
            guard commandSize > 0, command.count == commandSize else {
                return respond(.execute, .operationNotPermitted, context: &context)
            }
            let (parsed, rejection) = validateInitPacket(storage: context.storage)
            initCommand = parsed
            if let rejection {
                return respond(.execute, rejection.result, extended: rejection.extended, context: &context)
            }
            if commandCreatedFresh {
                received = []
                receivedCRC = CRC32()
                lastExecuted = 0
                lastExecutedCRC = 0
                objectOpen = false
                commandCreatedFresh = false
            }
            respond(.execute, .success, context: &context)
        case .data:
            guard objectOpen else { return respond(.execute, .operationNotPermitted, context: &context) }
            guard received.count == objectStart + objectSize else {
                return respond(.execute, .operationNotPermitted, context: &context)
            }
            objectOpen = false
            lastExecuted = received.count
            lastExecutedCRC = receivedCRC.value
            guard let initCommand, received.count == initCommand.imageSize else {
                // SDK 15–17 `on_data_obj_execute_request_sched` reschedules itself while
                // `nrf_fstorage_is_busy`: the response waits until every queued erase and write is done,
                // so every receive buffer is free again when the client may send the next object.
                return respond(.execute, .success, after: max(.zero, flashBusyUntil - context.now), context: &context)
            }
            postValidate(initCommand, context: &context)
        }
    }

    /// Why an init packet is refused: the result code and, for `extendedError`, the extended code.
    private typealias Rejection = (result: SecureDFUResultCode, extended: SecureDFUExtendedError?)

    private func validateInitPacket(storage: SimulatedStorage) -> (SecureInitCommand?, Rejection?) {
        if let forced = configuration.rejectInitPacketWith { return (nil, (.extendedError, forced)) }
        guard let parsed = SecureInitCommand(packet: command), parsed.opCode == 1 else {
            return (nil, (.extendedError, .initCommandInvalid))
        }
        if let rejection = checkSignature(parsed) { return (nil, rejection) }
        if let error = check(parsed, storage: storage) { return (nil, (.extendedError, error)) }
        return (parsed, nil)
    }

    /// The signature check of SDK 15–17 `nrf_dfu_validation_signature_check` (SDK 12
    /// `dfu_req_handling.c`): no signature → extended 0x08; a type other than ECDSA P-256 → 0x09; a
    /// signature over the init command that the compiled-in key does not verify → result 0x05
    /// (Invalid Object), not an extended error; a signature that is not 64 bytes → 0x0A.
    private func checkSignature(_ parsed: SecureInitCommand) -> Rejection? {
        let required = configuration.requiresSignature || configuration.publicKey != nil
        guard let signature = parsed.signature else { return required ? (.extendedError, .signatureMissing) : nil }
        if let signatureType = parsed.signatureType, signatureType != 0 { return (.extendedError, .wrongSignatureType) }
        guard let pem = configuration.publicKey else { return nil }
        // It hashes the serialized command (SHA-256) and verifies r‖s, each half stored little-endian.
        guard signature.count == 64 else { return (.operationFailed, nil) }
        guard let key = try? ECDSAP256.PublicKey(pem: pem),
            let decoded = try? SecureInitPacket(bytes: command), let stored = decoded.signature,
            ECDSAP256.verify(signature: stored.bigEndianRS, of: decoded.initCommandBytes, with: key)
        else { return (.invalidObject, nil) }
        return nil
    }

    private func check(_ parsed: SecureInitCommand, storage: SimulatedStorage) -> SecureDFUExtendedError? {
        switch parsed.type {
        case .application, .externalApplication:
            guard parsed.applicationSize > 0 else { return .initCommandInvalid }
        case .softdevice:
            guard parsed.softdeviceSize > 0 else { return .initCommandInvalid }
        case .bootloader:
            guard parsed.bootloaderSize > 0 else { return .initCommandInvalid }
        case .softdeviceBootloader:
            guard parsed.softdeviceSize > 0, parsed.bootloaderSize > 0 else { return .initCommandInvalid }
        }
        // SDK 15–17 `nrf_dfu_ver_validation_check`: type, hash type, then (skipped for a debug packet, as a
        // bootloader built with NRF_DFU_DEBUG does) hardware, SoftDevice and firmware versions.
        switch parsed.hashType {
        case .sha256, .crc, .none: break
        default: return .wrongHashType
        }
        if !parsed.isDebug, parsed.hardwareVersion != configuration.hardwareVersion { return .hardwareVersionFailure }
        let anySoftDevice: UInt32 = 0xFFFE
        if !parsed.softdeviceRequirements.contains(storage.softdeviceID),
            !parsed.softdeviceRequirements.contains(anySoftDevice) {
            return .softDeviceVersionFailure
        }
        if !parsed.isDebug {
            switch parsed.type {
            case .application, .externalApplication:
                if storage.application != nil, parsed.firmwareVersion < storage.applicationVersion { return .firmwareVersionFailure }
            case .bootloader, .softdeviceBootloader:
                if parsed.firmwareVersion <= storage.bootloaderVersion { return .firmwareVersionFailure }
            case .softdevice:
                break
            }
        }
        if parsed.imageSize > configuration.maximumImageSize { return .insufficientSpace }
        return nil
    }

    private mutating func postValidate(_ initCommand: SecureInitCommand, context: inout SimulatedContext) {
        // The bootloader finishes its flash writes, then hashes the image.
        let flashWait = max(.zero, flashBusyUntil - context.now)
        let hashing = context.flash.hashPerKilobyte * (received.count / 1024 + 1)
        let delay = flashWait + hashing
        let matches: Bool
        switch initCommand.hashType {
        case .sha256: matches = Array(SHA256.digest(received).reversed()) == initCommand.hash
        case .crc:
            var crc = ByteWriter()
            crc.writeInteger(CRC32.checksum(received))
            matches = crc.bytes == initCommand.hash
        default: matches = true
        }
        guard matches else {
            return respond(.execute, .extendedError, extended: .verificationFailed, after: delay, context: &context)
        }
        install(initCommand, into: &context.storage)
        respond(.execute, .success, after: delay, context: &context)
        context.effects.append(.reboot(into: .application, after: delay + .milliseconds(30)))
    }

    private func install(_ initCommand: SecureInitCommand, into storage: inout SimulatedStorage) {
        switch initCommand.type {
        case .application, .externalApplication:
            storage.application = received
            storage.applicationVersion = initCommand.firmwareVersion
        case .softdevice:
            storage.softdevice = received
            storage.softdeviceID = storage.softdeviceIDAfterUpdate
            storage.application = nil
        case .bootloader:
            storage.bootloader = received
            storage.bootloaderVersion = initCommand.firmwareVersion
        case .softdeviceBootloader:
            let split = Int(initCommand.softdeviceSize)
            storage.softdevice = Array(received[0..<split])
            storage.bootloader = Array(received[split...])
            storage.bootloaderVersion = initCommand.firmwareVersion
            storage.softdeviceID = storage.softdeviceIDAfterUpdate
            storage.application = nil
        }
    }
}
