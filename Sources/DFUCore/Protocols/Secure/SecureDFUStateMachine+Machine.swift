import DFUFormats
// Secure DFU as the runner drives it: each protocol decision (a request, packets, a wait) becomes the runner's
// actions on the Secure DFU Control Point and Packet characteristics, with the machine's own timeouts,
// progress, flash hints, PRN fallback and Abort.

extension SecureDFUStateMachine: DFUAgendaMachine {
    /// What the machine decides once the actions of a step are done.
    enum DrivenDecision: Sendable, Hashable {
        /// Notifications are on: send the first request.
        case start
        /// Packets without a receipt went out: send more, or ask for the checksum.
        case packetsWritten
    }

    /// A machine for the setup's part, with the options' settings and the peer's write length.
    public init(_ setup: DFUMachineSetup) {
        let part = setup.partToSend(by: "a Secure DFU machine")
        self.init(kind: part.kind, initPacket: part.initPacket, image: part.image,
                  configuration: .init(options: setup.options, maximumWriteLength: setup.peer.maximumWriteLength))
    }

    /// Takes one event from the runner.
    public mutating func handle(_ event: DFUMachineEvent) -> DFUMachineAction { handleOnAgenda(event) }

    static var afterNotificationsEnabled: DrivenDecision { .start }
    var notificationEndpoint: DFUEndpoint { .secureControlPoint }
    var isAborting: Bool { abortedStep != nil }

    /// Abort (0x0C): from SDK 15 on the bootloader answers success, drops the object it was receiving and resets;
    /// SDK 12–14 answer "op code not supported" and keep it (nRF5 SDK `nrf_dfu_req_handler.c`). What was executed
    /// stays either way.
    mutating func cancel() -> DFUMachineAction {
        abortedStep = step
        agenda.clear()
        return .lastWrite(SecureDFURequest.abort.bytes, to: .secureControlPoint)
    }

    mutating func decide(_ decision: DrivenDecision) -> SecureDFUAction {
        switch decision {
        case .start: start()
        case .packetsWritten: packetsWritten()
        }
    }

    /// How long the answer to Abort is waited for.
    static let abortAnswerTimeout: Duration = .milliseconds(500)
    /// Notifications taken before giving up on the answer to Abort: receipts still on their way come first.
    static let abortAnswerWaits = 8

    /// After Abort: its answer (Response 0x60, Abort 0x0C, result), then the aborted progress with what the answer
    /// said, then the end.
    mutating func aborting(_ event: DFUMachineEvent) -> DFUMachineAction {
        if case .action(let action)? = agenda.next() { return action }
        switch event {
        case .written:
            return .awaitNotification(from: .secureControlPoint, within: Self.abortAnswerTimeout)
        // Response (0x60) to Abort (0x0C), then the result.
        case .notified(let bytes) where abortAccepted == nil && bytes.starts(with: [0x60, 0x0C]):
            abortAccepted = bytes.count >= 3 && bytes[2] == 0x01
        case .notified where abortAccepted == nil && abortWaits + 1 < Self.abortAnswerWaits:
            abortWaits += 1
            return .awaitNotification(from: .secureControlPoint, within: Self.abortAnswerTimeout)
        case .reported:
            return .fail(.aborted(step: abortedStep ?? step))
        default:
            // No answer in time, or the link went: the bootloader's choice is not known.
            break
        }
        agenda.plan([.action(.report(.progress(.aborted, bytes: bytesExecuted)))])
        return .report(.abortAnswered(accepted: abortAccepted ?? false))
    }

    /// The answer to a request (or its timeout) was taken: tell the flash pacing writer what it implies, then
    /// carry on.
    mutating func answered(_ next: SecureDFUAction) -> DFUMachineAction {
        var hints: [DFUMachineAgenda<DrivenDecision>.Item] = []
        switch answering {
        case .create(.data, _)?:
            hints.append(.action(.report(.flash(.objectCreated))))
        case .execute? where bytesExecuted > executedWhenAsked:
            // SDK 15–17 answer a data Execute only once every queued erase and write is done.
            hints.append(.action(.report(.flash(.idle))))
        default:
            break
        }
        answering = nil
        return drive(next, after: hints)
    }

    /// Turns a protocol decision into the runner's actions, after the flash and PRN reports it brings.
    mutating func actions(for next: SecureDFUAction) -> [DFUMachineAgenda<DrivenDecision>.Item] {
        var items: [DFUMachineAgenda<DrivenDecision>.Item] = []
        if lossesDetected > lossesReported {
            // The flash is slower than the pacer assumed: assume it twice as slow from now on.
            lossesReported = lossesDetected
            items.append(.action(.report(.flash(.slower))))
        }
        if fellBackToPRN1, !fallbackReported {
            fallbackReported = true
            items.append(.action(.report(.fellBackToPRN1)))
        }
        switch next {
        case .send(let request):
            if request == .execute, step == .validatingFirmware {
                items.append(.action(.report(.progress(.validating, bytes: image.count))))
            }
            answering = request
            executedWhenAsked = bytesExecuted
            items.append(.action(.write([request.bytes], to: .secureControlPoint, type: .withResponse)))
            items.append(.action(.awaitNotification(from: .secureControlPoint, within: configuration.responseTimeout)))
        case .writePackets(let packets, let awaitReceipt):
            let firmware = step == .sendingFirmware
            if firmware {
                let offset = max(0, bytesSent - packets.reduce(0) { $0 + $1.count })
                items.append(.action(.report(.transferStarting(offset: offset))))
            }
            items.append(.action(.write(packets, to: .securePacket, type: .withoutResponse, paced: firmware)))
            if firmware { items.append(.action(.report(.progress(.uploading, bytes: bytesSent)))) }
            items.append(awaitReceipt
                ? .action(.awaitNotification(from: .secureControlPoint, within: configuration.receiptTimeout))
                : .decide(.packetsWritten))
        case .awaitNotification:
            // A late receipt was set aside: the answer is still to come.
            items.append(.action(.awaitNotification(from: .secureControlPoint, within: configuration.responseTimeout)))
        case .wait(let duration):
            items.append(.action(.wait(duration)))
        case .awaitReset:
            items.append(.action(.report(.progress(.disconnecting, bytes: image.count))))
            items.append(.action(.finish(.awaitReset)))
        case .fail(let error):
            switch error {
            case .disconnected, .timeout(step: .validatingFirmware, _):
                // No answer to the last Execute: the device may have reset into the image without the link
                // loss being seen yet. Reconnect and look (the new application, or the bootloader to resume).
                items.append(.action(.finish(.reconnect(error))))
            default:
                // The link stays up: after a rejected system part the application goes over it.
                items.append(.action(.fail(error)))
            }
        }
        return items
    }
}
