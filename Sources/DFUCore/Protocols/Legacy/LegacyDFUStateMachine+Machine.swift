import DFUFormats
// Legacy DFU as the runner drives it: each protocol decision becomes the runner's actions on the Legacy DFU
// Control Point and Packet characteristics, with the machine's own timeouts, progress, restarts and Reset.

extension LegacyDFUStateMachine: DFUAgendaMachine {
    /// What the machine decides once the actions of a step are done.
    enum DrivenDecision: Sendable, Hashable {
        /// Notifications are on: start.
        case start
        /// A request that expects no answer went out.
        case requestWritten
        /// Packets without a receipt went out.
        case packetsWritten
    }

    /// A machine for the setup's part, with the options' PRN and timeouts and the version the runner read.
    /// After as many restarts as the options allow objects attempts, the next machine restarts no more.
    public init(_ setup: DFUMachineSetup) {
        var version: LegacyDFUVersion?
        if case .legacyBootloader(let read) = setup.mode { version = read }
        self.init(part: setup.partToSend(by: "a Legacy DFU machine"), configuration: .init(
            packetReceiptNotifications: setup.options.packetReceiptNotifications, version: version,
            restarted: setup.restarts >= setup.options.objectAttempts,
            responseTimeout: setup.options.responseTimeout, receiptTimeout: setup.options.receiptTimeout))
    }

    /// Takes one event from the runner.
    public mutating func handle(_ event: DFUMachineEvent) -> DFUMachineAction { handleOnAgenda(event) }

    static var afterNotificationsEnabled: DrivenDecision { .start }
    var notificationEndpoint: DFUEndpoint { .legacyControlPoint }
    var isAborting: Bool { abortedStep != nil }

    /// Reset (0x06): the bootloader abandons the transfer and resets.
    mutating func cancel() -> DFUMachineAction {
        abortedStep = step
        agenda.plan([.action(.report(.progress(.aborted, bytes: bytesSent)))])
        return .lastWrite(LegacyDFURequest.reset.bytes, to: .legacyControlPoint)
    }

    /// After Reset: the aborted progress, then the end.
    mutating func aborting(_ event: DFUMachineEvent) -> DFUMachineAction {
        if case .action(let action)? = agenda.next() { return action }
        return .fail(.aborted(step: abortedStep ?? step))
    }

    mutating func decide(_ decision: DrivenDecision) -> LegacyDFUAction {
        switch decision {
        case .start: start()
        case .requestWritten: requestWritten()
        case .packetsWritten: packetsWritten()
        }
    }

    /// Turns a protocol decision into the runner's actions.
    mutating func actions(for next: LegacyDFUAction) -> [DFUMachineAgenda<DrivenDecision>.Item] {
        var items: [DFUMachineAgenda<DrivenDecision>.Item] = []
        switch next {
        case .send(let request):
            if request == .validate {
                items.append(.action(.report(.progress(.validating, bytes: part.image.count))))
            }
            items.append(.action(.write([request.bytes], to: .legacyControlPoint, type: .withResponse)))
            items.append(request.expectsResponse
                ? .action(.awaitNotification(from: .legacyControlPoint, within: configuration.responseTimeout))
                : .decide(.requestWritten))
        case .writePackets(let packets, let awaitReceipt):
            let firmware = step == .sendingFirmware && !packets.isEmpty
            if firmware {
                let offset = max(0, bytesSent - packets.reduce(0) { $0 + $1.count })
                items.append(.action(.report(.transferStarting(offset: offset))))
            }
            if !packets.isEmpty {
                items.append(.action(.write(packets, to: .legacyPacket, type: .withoutResponse)))
            }
            if firmware { items.append(.action(.report(.progress(.uploading, bytes: bytesSent)))) }
            if awaitReceipt {
                // A receipt comes within a few connection events unless packets were lost: do not wait out the
                // response timeout for it.
                let timeout = awaitsPacketReceipt ? configuration.receiptTimeout : configuration.responseTimeout
                items.append(.action(.awaitNotification(from: .legacyControlPoint, within: timeout)))
            } else {
                items.append(.decide(.packetsWritten))
            }
        case .wait(let duration):
            items.append(.action(.wait(duration)))
        case .resetAndRestart:
            items.append(.action(.lastWrite(LegacyDFURequest.reset.bytes, to: .legacyControlPoint)))
            items.append(.action(.finish(.restart)))
        case .awaitReset:
            items.append(.action(.report(.progress(.disconnecting, bytes: part.image.count))))
            items.append(.action(.finish(.awaitReset)))
        case .fail(let error):
            if case .disconnected = error {
                // A Legacy bootloader whose link was lost mid-transfer refuses Start DFU until it is reset
                // (SDK 11 `dfu_start_pkt_handle`): the runner reconnects and the next machine starts over.
                items.append(.action(.finish(.reconnect(error))))
            } else {
                items.append(.action(.fail(error)))
            }
        }
        return items
    }
}
