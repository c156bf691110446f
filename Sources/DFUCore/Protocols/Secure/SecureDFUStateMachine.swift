import DFUCrypto
public import DFUFormats

/// Secure DFU (SDK 12–17) for one part over one connection, as a pure state machine.
///
/// Feed it events (`start`, `received`, `packetsWritten`, `delayElapsed`, `timedOut`,
/// `disconnected`); each returns the next ``SecureDFUAction``. It never blocks, sleeps or does I/O.
/// A new machine is made for every connection: `start()` selects both objects and resumes
/// from the offsets the bootloader reports.
public struct SecureDFUStateMachine: Sendable {
    /// The settings one upload uses.
    public struct Configuration: Sendable, Hashable {
        /// PRN interval for firmware (0 = off). The init packet is always sent with PRN off.
        public var packetReceiptNotifications: UInt16
        /// Bytes per packet write.
        public var packetSize: Int
        /// Resume from the offsets Select reports.
        public var resume: Bool
        /// Wait after the first Create of a data object on this connection.
        public var firstObjectDelay: Duration
        /// Wait after every Create of a data object.
        public var objectDelay: Duration
        /// Attempts per object before a checksum mismatch is fatal.
        public var objectAttempts: Int
        /// PRN interval for the rest of the transfer after a detected loss (at least 1).
        public var packetReceiptNotificationsAfterLoss: UInt16
        /// Detected losses before the PRN is lowered (at least 1). With flash pacing each loss first slows the
        /// pacer down (the flash was slower than it assumed), so the default with pacing is one more than the
        /// pacer's slow-downs: a receipt per packet costs two connection intervals each, far more than a
        /// slower pacer with 20-byte packets.
        public var lossesBeforePRNFallback: Int
        /// Losses per object (the device answers, short of what was sent) retried without counting as an
        /// attempt: each makes the client slower (pacer, PRN, waits), so a flash slower than assumed costs
        /// time, never the update.
        public var lossRetries: Int
        /// The wait after every data Create once losses go on after the PRN fell back; doubled at each further
        /// loss, up to ``maximumLossDelay``, so that a slow flash can finish the page erase a Create starts.
        public var lossDelay: Duration
        /// The longest wait after a Create that losses lead to.
        public var maximumLossDelay: Duration
        /// How long to wait for the answer to a control point request.
        public var responseTimeout = DFUOptions().responseTimeout
        /// How long to wait for a packet receipt before asking where the device is.
        public var receiptTimeout = DFUOptions().receiptTimeout

        /// Makes a configuration.
        public init(packetReceiptNotifications: UInt16 = DFUOptions().packetReceiptNotifications, packetSize: Int = 244, resume: Bool = true,
                    firstObjectDelay: Duration = .milliseconds(400), objectDelay: Duration = .zero,
                    objectAttempts: Int = 3, packetReceiptNotificationsAfterLoss: UInt16 = 1,
                    lossesBeforePRNFallback: Int = 1, lossRetries: Int = 8, lossDelay: Duration = .milliseconds(100),
                    maximumLossDelay: Duration = .milliseconds(3200)) {
            self.lossRetries = max(0, lossRetries)
            self.lossDelay = lossDelay
            self.maximumLossDelay = maximumLossDelay
            self.packetReceiptNotifications = packetReceiptNotifications
            self.packetSize = max(1, packetSize)
            self.resume = resume
            self.firstObjectDelay = firstObjectDelay
            self.objectDelay = objectDelay
            self.objectAttempts = max(1, objectAttempts)
            self.packetReceiptNotificationsAfterLoss = max(1, packetReceiptNotificationsAfterLoss)
            self.lossesBeforePRNFallback = max(1, lossesBeforePRNFallback)
        }

        /// The configuration an options value implies for a link with this write length.
        public init(options: DFUOptions, maximumWriteLength: Int) {
            self.init(packetReceiptNotifications: options.packetReceiptNotifications,
                      packetSize: options.securePacketSize(maximumWriteLength: maximumWriteLength),
                      resume: options.resume, firstObjectDelay: options.effectiveFirstObjectDelay,
                      objectDelay: options.objectDelay, objectAttempts: options.objectAttempts,
                      packetReceiptNotificationsAfterLoss: options.packetReceiptNotificationsAfterLoss,
                      lossesBeforePRNFallback: options.flashPacing == nil ? 1 : FlashPacer.maximumSlowdowns + 1)
            responseTimeout = options.responseTimeout
            receiptTimeout = options.receiptTimeout
        }
    }

    enum Phase: Sendable, Hashable {
        case idle
        case enablingNotifications
        case settingInitPRN
        case selectingCommand
        case creatingCommand
        case sendingCommand
        case checkingCommand
        case executingCommand
        case settingDataPRN
        case selectingData
        case executingResumedObject
        case creatingData
        case delaying
        case streaming
        case awaitingReceipt
        case checkingLostReceipt
        case checkingData
        case executingData
        case settingFallbackPRN
        case resetting
        case failed
    }

    let kind: PartKind
    let initPacket: [UInt8]
    let image: [UInt8]
    let configuration: Configuration
    var phase: Phase = .idle

    var commandAttempts = 0
    var dataMaxSize = 0
    var objectStart = 0
    var objectEnd = 0
    var sent = 0
    var crcAtObjectStart: UInt32 = 0
    /// The CRC-32 of the image up to `end`, the last one computed in the current object: the next check continues
    /// from it, so each byte is summed once.
    var crcSoFar: (end: Int, value: UInt32) = (0, 0)
    var attempts = 0
    var devicePRN: UInt16 = 0
    var packetsSinceReset = 0
    var loweredPRN = false

    /// Firmware bytes the device has executed (safe on the device).
    public internal(set) var bytesExecuted = 0
    /// Whether the PRN was lowered (to 1 by default) after detected losses.
    public var fellBackToPRN1: Bool { loweredPRN }
    /// Packet losses detected on this connection (a receipt or checksum short of what was sent).
    public internal(set) var lossesDetected = 0

    // The runner's view (DFUProtocolMachine, in SecureDFUStateMachine+Machine.swift).
    /// What is left of the current step's actions.
    var agenda = DFUMachineAgenda<DrivenDecision>()
    /// The timeout of the notification being awaited.
    var awaitedFor: Duration = .zero
    /// The request whose answer is awaited, until its first notification or timeout.
    var answering: SecureDFURequest?
    /// Where the machine was when the update was cancelled.
    var abortedStep: DFUStep?
    /// Notifications taken while waiting for the answer to Abort (receipts still on their way may come first).
    var abortWaits = 0
    /// The answer to Abort, once it came (nil: none yet, or none within its time).
    var abortAccepted: Bool?
    /// Bytes executed when the awaited request was sent.
    var executedWhenAsked = 0
    /// Losses already reported to the flash pacing writer.
    var lossesReported = 0
    /// Whether the PRN fallback was reported.
    var fallbackReported = false

    /// Makes a machine for one part.
    public init(kind: PartKind = .application, initPacket: [UInt8], image: [UInt8], configuration: Configuration) {
        self.kind = kind
        self.initPacket = initPacket
        self.image = image
        self.configuration = configuration
    }

    /// Firmware bytes sent in order so far (the offset of the next firmware byte, or what is executed).
    public var bytesSent: Int {
        switch phase {
        case .streaming, .awaitingReceipt, .checkingLostReceipt, .checkingData, .executingData: max(bytesExecuted, sent)
        default: bytesExecuted
        }
    }

    // MARK: - Events

    /// Starts the upload: PRN off for the init packet.
    public mutating func start() -> SecureDFUAction {
        guard phase == .idle || phase == .enablingNotifications else { return fail(.unexpectedResponse(step: .settingPRN, bytes: [])) }
        guard !initPacket.isEmpty else {
            return fail(.invalidPart(kind, reason: "a Secure DFU part needs an init packet"))
        }
        phase = .settingInitPRN
        return .send(.setPRN(0))
    }

    /// A notification arrived on the control point.
    public mutating func received(_ bytes: [UInt8]) -> SecureDFUAction {
        let response: SecureDFUResponse
        do {
            response = try SecureDFUResponse(bytes: bytes)
        } catch {
            return fail(.unexpectedResponse(step: step, bytes: bytes))
        }
        if case .checksum(let offset, _) = response {
            if expectedOpCode != .calculateChecksum {
                // A receipt that arrived after its timeout was answered by a checksum request: already handled.
                return .awaitNotification
            }
            if let late = lateReceiptOffset, offset == late, phase != .checkingLostReceipt, expectedChecksumOffset != late {
                // A receipt and a checksum answer look the same (`60 03 01` offset CRC): this one reports the
                // offset of the receipt given up on, not where the transfer is now. It is that late receipt,
                // or the checksum answer that followed it; either way it was already acted on.
                lateReceiptOffset = nil
                return .awaitNotification
            }
            if phase == .checkingLostReceipt, offset != lateReceiptOffset {
                // Short of the receipt's offset: packets were lost and that receipt never comes.
                lateReceiptOffset = nil
            }
        } else if response.request != .calculateChecksum {
            // Notifications stay in order: a late receipt would have come before this answer.
            lateReceiptOffset = nil
        } else if phase == .checkingLostReceipt {
            lateReceiptOffset = nil
        }
        guard response.request == expectedOpCode else { return fail(.unexpectedResponse(step: step, bytes: bytes)) }
        switch (phase, response) {
        case (_, .refused(_, let result, let extended)):
            return refused(result, extended, request: response.request)
        case (.settingInitPRN, .succeeded):
            devicePRN = 0
            phase = .selectingCommand
            return .send(.select(.command))
        case (.selectingCommand, .selected(let maxSize, let offset, let crc)):
            return selectedCommand(maxSize: maxSize, offset: offset, crc: crc)
        case (.creatingCommand, .succeeded):
            phase = .sendingCommand
            sent = 0
            return .writePackets(packets(of: initPacket, from: 0, to: initPacket.count), awaitReceipt: false)
        case (.checkingCommand, .checksum(let offset, let crc)):
            return checkedCommand(offset: offset, crc: crc)
        case (.executingCommand, .succeeded):
            return executedCommand()
        case (.settingDataPRN, .succeeded):
            devicePRN = configuration.packetReceiptNotifications
            packetsSinceReset = 0
            phase = .selectingData
            return .send(.select(.data))
        case (.selectingData, .selected(let maxSize, let offset, let crc)):
            return selectedData(maxSize: maxSize, offset: offset, crc: crc, bytes: bytes)
        case (.executingResumedObject, .succeeded), (.executingData, .succeeded):
            return executedObject()
        case (.creatingData, .succeeded):
            packetsSinceReset = 0
            let delay = max(createdFirstObject ? configuration.objectDelay
                : max(configuration.firstObjectDelay, configuration.objectDelay), delayAfterLosses)
            createdFirstObject = true
            if delay > .zero {
                phase = .delaying
                return .wait(delay)
            }
            return stream()
        case (.awaitingReceipt, .checksum(let offset, let crc)), (.checkingLostReceipt, .checksum(let offset, let crc)):
            return checkedReceipt(offset: offset, crc: crc)
        case (.checkingData, .checksum(let offset, let crc)):
            return checkedObject(offset: offset, crc: crc)
        case (.settingFallbackPRN, .succeeded):
            devicePRN = configuration.packetReceiptNotificationsAfterLoss
            packetsSinceReset = 0
            return createObject()
        default:
            return fail(.unexpectedResponse(step: step, bytes: bytes))
        }
    }

    var createdFirstObject = false
    /// The wait after each Create that the losses so far call for (zero before the first).
    var delayAfterLosses: Duration = .zero
    /// Losses of the current object retried without counting as attempts.
    var lossRetries = 0
    /// The offset of the packet receipt last given up on, while a late copy of it may still arrive.
    var lateReceiptOffset: UInt32?

    /// The offset a checksum answer or receipt must report now, when one is awaited.
    var expectedChecksumOffset: UInt32? {
        switch phase {
        case .awaitingReceipt: UInt32(sent)
        case .checkingData: UInt32(objectEnd)
        case .checkingCommand: UInt32(initPacket.count)
        default: nil
        }
    }

    /// The packets of the last `.writePackets(…, awaitReceipt: false)` were written.
    public mutating func packetsWritten() -> SecureDFUAction {
        switch phase {
        case .sendingCommand:
            sent = initPacket.count
            phase = .checkingCommand
            return .send(.calculateChecksum)
        case .streaming:
            if sent < objectEnd { return stream() }
            phase = .checkingData
            return .send(.calculateChecksum)
        default:
            preconditionFailure("Secure packets without a receipt were written in phase \(phase), which writes none")
        }
    }

    /// The delay asked for by `.wait` is over.
    public mutating func delayElapsed() -> SecureDFUAction {
        guard phase == .delaying else { preconditionFailure("a wait ended in Secure phase \(phase), which asks for none") }
        return stream()
    }

    /// No notification came within `duration`.
    public mutating func timedOut(after duration: Duration) -> SecureDFUAction {
        if phase == .awaitingReceipt {
            // A dropped packet means the receipt never comes: ask where the device is. A receipt that is
            // only late still comes, before the answer or after it was taken for the answer.
            lateReceiptOffset = UInt32(sent)
            phase = .checkingLostReceipt
            return .send(.calculateChecksum)
        }
        return fail(.timeout(step: step, after: duration))
    }

    /// The link dropped.
    /// While validating (the last Execute) this cannot tell a reset after activation from a lost
    /// request: the runner looks for the bootloader again and resumes if it is still there.
    public mutating func disconnected() -> SecureDFUAction {
        if phase == .resetting { return .awaitReset }
        return fail(.disconnected(step: step, attempts: 1))
    }

    /// The step the machine is in, for errors and logs.
    public var step: DFUStep {
        switch phase {
        case .enablingNotifications: .enablingNotifications
        case .idle, .settingInitPRN, .settingDataPRN, .settingFallbackPRN: .settingPRN
        case .selectingCommand: .selecting(.command)
        case .creatingCommand: .creating(.command)
        case .sendingCommand: .sendingInitPacket
        case .checkingCommand: .verifying(.command)
        case .executingCommand: .executingInitPacket
        case .selectingData: .selecting(.data)
        case .creatingData: .creating(.data)
        case .delaying, .streaming, .awaitingReceipt, .checkingLostReceipt: .sendingFirmware
        case .checkingData: .verifying(.data)
        case .executingData, .executingResumedObject: objectEnd == image.count ? .validatingFirmware : .executingDataObject
        case .resetting, .failed: .activating
        }
    }
}
