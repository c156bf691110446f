// The buttonless switch as the runner drives it: requests on the variant's characteristic, each answered
// within the response timeout.

extension ButtonlessStateMachine: DFUAgendaMachine {
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
    public mutating func handle(_ event: DFUMachineEvent) -> DFUMachineAction { handleOnAgenda(event) }

    static var afterNotificationsEnabled: DrivenDecision { .start }
    var notificationEndpoint: DFUEndpoint { variant.endpoint }
    /// Never: nothing is taken back when the switch is cancelled.
    var isAborting: Bool { false }

    /// Nothing to take back: the application either jumps or stays as it was.
    mutating func cancel() -> DFUMachineAction { .fail(.aborted(step: step)) }

    mutating func aborting(_ event: DFUMachineEvent) -> DFUMachineAction {
        preconditionFailure("a buttonless machine never says goodbye, so it never aborts")
    }

    /// The switch asks for no wait.
    mutating func delayElapsed() -> ButtonlessAction {
        preconditionFailure("a buttonless machine asks for no wait, so no wait can end")
    }

    mutating func decide(_ decision: DrivenDecision) -> ButtonlessAction {
        switch decision {
        case .start: start()
        }
    }

    mutating func actions(for next: ButtonlessAction) -> [DFUMachineAgenda<DrivenDecision>.Item] {
        switch next {
        case .send(let request):
            [.action(.write([request.bytes], to: variant.endpoint, type: .withResponse)),
             .action(.awaitNotification(from: variant.endpoint, within: responseTimeout))]
        case .jumped(let name):
            [.action(.finish(.jumped(bootloaderName: name)))]
        case .fail(let error):
            [.action(.fail(error))]
        }
    }
}
