public import DFUFormats
/// Legacy DFU (SDK 4.3–11) for one part over one connection, as a pure state machine.
///
/// Packets are always 20 bytes, whatever the MTU: Nordic's legacy bootloaders drop longer ones.
public struct LegacyDFUStateMachine: Sendable {
    /// The settings one upload uses.
    public struct Configuration: Sendable, Hashable {
        /// PRN interval (0 = off); forced to 1 in slow mode.
        public var packetReceiptNotifications: UInt16
        /// The bootloader's DFU Version; nil when the characteristic is absent (SDK ≤ 6: slow mode).
        public var version: LegacyDFUVersion?
        /// Whether no more restarts are allowed (after "invalid state", lost packets or a wrong receipt the
        /// runner resets the bootloader and starts over a few times).
        public var restarted: Bool
        /// How long to wait for the answer to a control point request.
        public var responseTimeout: Duration
        /// How long to wait for a packet receipt (or the answer to the last packet, with receipts on).
        public var receiptTimeout: Duration

        /// Makes a configuration.
        public init(packetReceiptNotifications: UInt16 = DFUOptions().packetReceiptNotifications, version: LegacyDFUVersion?,
                    restarted: Bool = false,
                    responseTimeout: Duration = DFUOptions().responseTimeout,
                    receiptTimeout: Duration = DFUOptions().receiptTimeout) {
            self.packetReceiptNotifications = packetReceiptNotifications
            self.version = version
            self.restarted = restarted
            self.responseTimeout = responseTimeout
            self.receiptTimeout = receiptTimeout
        }

        /// Slow mode of pre-SDK-7 bootloaders: PRN 1 and a pause before the first packet.
        public var slowMode: Bool { version == nil }
    }

    /// The Legacy packet size, fixed by the bootloader.
    public static let packetSize = 20
    /// How long slow mode waits before Start DFU and before the first firmware packet.
    public static let slowModeStartDelay: Duration = .milliseconds(1000)
    /// How long slow mode waits before the first firmware packet.
    public static let slowModeFirstPacketDelay: Duration = .milliseconds(2000)

    private enum Phase: Sendable, Hashable {
        case idle, enablingNotifications, waitingBeforeStart, startRequest, startSizes, initBegin, initPackets, initComplete,
             prnRequest, receiveRequest, waitingBeforeData, streaming, awaitingReceipt, awaitingReceived,
             validating, activating, done, failed
    }

    let part: FirmwarePart
    let configuration: Configuration
    private var phase: Phase = .idle

    // The runner's view (DFUProtocolMachine, in LegacyDFUStateMachine+Machine.swift).
    /// What is left of the current step's actions.
    var agenda = DFUMachineAgenda<DrivenDecision>()
    /// The timeout of the notification being awaited.
    var awaitedFor: Duration = .zero
    /// Where the machine was when the update was cancelled.
    var abortedStep: DFUStep?
    private var usesOriginalStart = false
    private var sent = 0

    /// Firmware bytes written so far.
    public var bytesSent: Int { sent }

    /// Makes a machine for one part.
    public init(part: FirmwarePart, configuration: Configuration) {
        self.part = part
        self.configuration = configuration
    }

    private var prn: Int { configuration.slowMode ? 1 : Int(configuration.packetReceiptNotifications) }

    /// The step, for errors.
    public var step: DFUStep {
        switch phase {
        case .enablingNotifications: .enablingNotifications
        case .idle, .waitingBeforeStart, .startRequest, .startSizes: .startingDFU
        case .initBegin, .initPackets, .initComplete: .sendingInitParameters
        case .prnRequest, .receiveRequest, .waitingBeforeData, .streaming, .awaitingReceipt, .awaitingReceived: .sendingFirmware
        case .validating: .validating
        case .activating, .done, .failed: .activating
        }
    }

    /// Starts with Start DFU (after a pause in slow mode).
    public mutating func start() -> LegacyDFUAction {
        if configuration.slowMode {
            phase = .waitingBeforeStart
            return .wait(Self.slowModeStartDelay)
        }
        return sendStart()
    }

    private mutating func sendStart() -> LegacyDFUAction {
        phase = .startRequest
        return usesOriginalStart ? .send(.startDFUOriginal) : .send(.startDFU(part.kind))
    }

    /// A control point write that expects no notification went out.
    public mutating func requestWritten() -> LegacyDFUAction {
        switch phase {
        case .startRequest:
            phase = .startSizes
            var sizes = ByteWriter()
            if usesOriginalStart {
                sizes.writeInteger(UInt32(part.image.count))
            } else {
                sizes.writeInteger(part.softdeviceSize)
                sizes.writeInteger(part.bootloaderSize)
                sizes.writeInteger(part.applicationSize)
            }
            return .writePackets([sizes.bytes], awaitReceipt: true)
        case .initBegin:
            phase = .initPackets
            return .writePackets(chunks(part.initPacket, from: 0, to: part.initPacket.count), awaitReceipt: configuration.slowMode)
        case .prnRequest:
            phase = .receiveRequest
            return .send(.receiveFirmware)
        case .receiveRequest:
            if configuration.slowMode {
                phase = .waitingBeforeData
                return .wait(Self.slowModeFirstPacketDelay)
            }
            return stream()
        case .activating:
            phase = .done
            return .awaitReset
        default:
            preconditionFailure("a Legacy request that expects no answer was written in phase \(phase), which sends none")
        }
    }

    /// The packets of a `.writePackets(…, awaitReceipt: false)` went out.
    public mutating func packetsWritten() -> LegacyDFUAction {
        switch phase {
        case .initPackets:
            phase = .initComplete
            return .send(.initializeComplete)
        case .streaming:
            if sent < part.image.count { return stream() }
            phase = .awaitingReceived
            return .writePackets([], awaitReceipt: true)
        default:
            preconditionFailure("Legacy packets without a receipt were written in phase \(phase), which writes none")
        }
    }

    /// A pause is over.
    public mutating func delayElapsed() -> LegacyDFUAction {
        switch phase {
        case .waitingBeforeStart: return sendStart()
        case .waitingBeforeData: return stream()
        default: preconditionFailure("a wait ended in Legacy phase \(phase), which asks for none")
        }
    }

    /// A notification arrived on the control point.
    public mutating func received(_ bytes: [UInt8]) -> LegacyDFUAction {
        let notification: LegacyDFUNotification
        do {
            notification = try LegacyDFUNotification(bytes: bytes)
        } catch {
            return fail(.unexpectedResponse(step: step, bytes: bytes))
        }
        if case .packetReceipt(let count) = notification {
            // A receipt for the very last packet may come before the final response: keep waiting.
            if phase == .awaitingReceived { return .writePackets([], awaitReceipt: true) }
            guard phase == .awaitingReceipt else { return fail(.unexpectedResponse(step: step, bytes: bytes)) }
            // SDK 5.2 fills only 16 bits: compare what was filled.
            let matches = count == UInt32(sent) || (count <= 0xFFFF && count == UInt32(sent) & 0xFFFF)
            guard matches else {
                if !configuration.restarted {
                    // The bootloader counted other bytes than were sent: start over after a reset.
                    phase = .done
                    return .resetAndRestart
                }
                return fail(.crcMismatch(step: step, object: "firmware image", expectedOffset: UInt32(sent),
                                         reportedOffset: count, expectedCRC: 0, reportedCRC: 0, attempts: 1))
            }
            return sent < part.image.count ? stream() : awaitReceived()
        }
        guard case .response(let request, let status) = notification else {
            return fail(.unexpectedResponse(step: step, bytes: bytes))
        }
        switch (phase, request) {
        case (.startSizes, .startDFU):
            if status == .success { return beginInit() }
            if status == .invalidState, !configuration.restarted {
                phase = .done
                return .resetAndRestart
            }
            if status == .notSupported, part.kind == .application, !usesOriginalStart {
                // SDK ≤ 6.0 bootloaders know only the original app-only Start DFU.
                usesOriginalStart = true
                return sendStart()
            }
            return fail(.remote(step: step, request: "Start DFU", status: .legacy(status)))
        case (.initComplete, .initialize), (.initPackets, .initialize):
            guard status == .success else {
                return fail(.remote(step: step, request: "Initialize DFU Parameters", status: .legacy(status)))
            }
            return requestReceipts()
        case (.awaitingReceived, .receiveFirmware), (.awaitingReceipt, .receiveFirmware):
            guard status == .success else {
                return fail(.remote(step: step, request: "Receive Firmware Image", status: .legacy(status)))
            }
            guard sent == part.image.count else { return fail(.unexpectedResponse(step: step, bytes: bytes)) }
            phase = .validating
            return .send(.validate)
        case (.validating, .validate):
            guard status == .success else {
                return fail(.remote(step: step, request: "Validate Firmware", status: .legacy(status)))
            }
            phase = .activating
            return .send(.activateAndReset)
        default:
            return fail(.unexpectedResponse(step: step, bytes: bytes))
        }
    }

    /// No notification came in time.
    public mutating func timedOut(after duration: Duration) -> LegacyDFUAction {
        if awaitsPacketReceipt, !configuration.restarted {
            // Packets were lost: the bootloader waits for bytes that never come and cannot say how many it
            // has. It takes no new Start DFU until it is reset (SDK 11 `dfu_start_pkt_handle` accepts one only
            // in DFU_STATE_IDLE): reset it and start over.
            phase = .done
            return .resetAndRestart
        }
        return fail(.timeout(step: step, after: duration))
    }

    /// Whether the machine waits for a packet receipt, or for the answer to the last packet, with receipts on:
    /// either comes within a few connection events unless packets were lost.
    public var awaitsPacketReceipt: Bool { prn > 0 && (phase == .awaitingReceipt || phase == .awaitingReceived) }

    /// The link dropped; after Activate that is the expected reset.
    public mutating func disconnected() -> LegacyDFUAction {
        if phase == .activating || phase == .done { return .awaitReset }
        return fail(.disconnected(step: step, attempts: 1))
    }

    private mutating func beginInit() -> LegacyDFUAction {
        if part.initPacket.isEmpty { return requestReceipts() }
        phase = .initBegin
        // SDK ≤ 6 takes `02` and the CRC-16 on the packet; SDK 7+ brackets the packet with 02 00 / 02 01.
        return configuration.slowMode ? .send(.initializeCRC) : .send(.initializeBegin)
    }

    private mutating func requestReceipts() -> LegacyDFUAction {
        phase = .prnRequest
        if prn == 0 {
            phase = .receiveRequest
            return .send(.receiveFirmware)
        }
        return .send(.packetReceiptRequest(UInt16(clamping: prn)))
    }

    private mutating func stream() -> LegacyDFUAction {
        let total = part.image.count
        let left = (total - sent + Self.packetSize - 1) / Self.packetSize
        let count = prn == 0 ? left : min(prn, left)
        let end = min(total, sent + count * Self.packetSize)
        let batch = chunks(part.image, from: sent, to: end)
        sent = end
        let fullBatch = prn > 0 && batch.count == prn && end < total
        phase = fullBatch ? .awaitingReceipt : .streaming
        return .writePackets(batch, awaitReceipt: fullBatch)
    }

    private mutating func awaitReceived() -> LegacyDFUAction {
        phase = .awaitingReceived
        return .writePackets([], awaitReceipt: true)
    }

    private func chunks(_ bytes: [UInt8], from start: Int, to end: Int) -> [[UInt8]] {
        stride(from: start, to: end, by: Self.packetSize).map { Array(bytes[$0..<min(end, $0 + Self.packetSize)]) }
    }

    private mutating func fail(_ error: DFUError) -> LegacyDFUAction {
        phase = .failed
        return .fail(error)
    }

    /// Notifications are being enabled on the control point, before ``start()``.
    mutating func enablingNotifications() {
        if phase == .idle { phase = .enablingNotifications }
    }
}
