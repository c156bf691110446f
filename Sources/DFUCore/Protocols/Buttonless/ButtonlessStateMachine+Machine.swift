// The buttonless switch as the runner drives it: requests on the variant's characteristic, each answered
// within the response timeout.

extension ButtonlessStateMachine: DFUProtocolMachine {
    /// What the machine decides once the actions of a step are done.
    enum DrivenDecision: Sendable, Hashable {
        /// Indications are on: send the first request.
        case start
    }

    /// A machine for the setup's buttonless variant (the peer's, when the setup's mode names none), to rename
    /// the bootloader to the setup's alternative name when the variant can.
    public init(_ setup: DFUMachineSetup) {
        guard case .enterBootloader(let alternativeName) = setup.work else {
            preconditionFailure("a buttonless machine was made for \(setup.work), not to enter the bootloader")
        }
        let variant: ButtonlessVariant
        if case .buttonless(let named) = setup.mode {
            variant = named
        } else {
            variant = ButtonlessVariant.allCases.first { setup.peer.endpoints.contains($0.endpoint) } ?? .withoutBonds
        }
        self.init(variant: variant, alternativeName: alternativeName, responseTimeout: setup.options.responseTimeout)
    }

    /// Takes one event from the runner.
    public mutating func handle(_ event: DFUMachineEvent) -> DFUMachineAction {
        switch event {
        case .start:
            enablingNotifications()
            agenda.plan([.action(.enableNotifications(on: variant.endpoint)), .decide(.start)])
            return proceed()
        case .written, .reported:
            return proceed()
        case .notified(let bytes):
            return drive(received(bytes))
        case .timedOut:
            return drive(timedOut(after: responseTimeout))
        case .disconnected:
            agenda.clear()
            return drive(disconnected())
        case .delayElapsed:
            return drive(.fail(.unexpectedResponse(step: step, bytes: [])))
        case .cancelled:
            // Nothing to take back: the application either jumps or stays as it was.
            return .fail(.aborted(step: step))
        }
    }

    private mutating func proceed() -> DFUMachineAction {
        switch agenda.next() {
        case .action(let action)?: return action
        case .decide(.start)?: return drive(start())
        case nil: return drive(.fail(.unexpectedResponse(step: step, bytes: [])))
        }
    }

    private mutating func drive(_ next: ButtonlessAction) -> DFUMachineAction {
        switch next {
        case .send(let request):
            agenda.plan([.action(.write([request.bytes], to: variant.endpoint, type: .withResponse)),
                         .action(.awaitNotification(from: variant.endpoint, within: responseTimeout))])
            return proceed()
        case .jumped(let name):
            return .finish(.jumped(bootloaderName: name))
        case .fail(let error):
            return .fail(error)
        }
    }
}
