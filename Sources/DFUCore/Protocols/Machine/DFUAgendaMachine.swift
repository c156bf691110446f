/// The one shape of the nRF5 machines (Secure, Legacy, Buttonless) as the runner drives them.
///
/// Each protocol is written as its own decisions (``Next``: a request to send, packets to write, a wait, a
/// failure) taken on its own events (a notification, a timeout, a lost link). This adapter, the same for all,
/// turns each decision into the runner's actions (``actions(for:)``), keeps them on the ``agenda`` and hands
/// them out one per `.written` or `.reported`, and asks the protocol for its next decision when the agenda
/// reaches one of its ``Decision``s. Only the protocol's own parts differ: what it decides, how a decision
/// becomes actions, and how it says goodbye when the update is cancelled.
protocol DFUAgendaMachine: DFUProtocolMachine {
    /// What the protocol decides once the actions planned before it are done.
    associatedtype Decision: Sendable & Hashable
    /// One decision of the protocol.
    associatedtype Next

    /// The actions of the current decision not yet handed out.
    var agenda: DFUMachineAgenda<Decision> { get set }
    /// How long the notification handed out last is awaited (what a timeout is reported after).
    var awaitedFor: Duration { get set }
    /// The characteristic whose notifications (or indications) are turned on first.
    var notificationEndpoint: DFUEndpoint { get }
    /// The decision to take once they are on.
    static var afterNotificationsEnabled: Decision { get }
    /// Whether the update was cancelled and the machine is saying goodbye.
    var isAborting: Bool { get }

    /// Notifications are being turned on, before the first decision.
    mutating func enablingNotifications()
    /// A notification came.
    mutating func received(_ bytes: [UInt8]) -> Next
    /// None came within `duration`.
    mutating func timedOut(after duration: Duration) -> Next
    /// A wait the protocol asked for is over.
    mutating func delayElapsed() -> Next
    /// The link went.
    mutating func disconnected() -> Next
    /// The protocol's next decision when the agenda reaches `decision`.
    mutating func decide(_ decision: Decision) -> Next
    /// The runner's actions for a decision, ending in an await, a decision of the agenda's or the end.
    mutating func actions(for next: Next) -> [DFUMachineAgenda<Decision>.Item]
    /// A decision taken on a notification or a timeout; by default planned like any other.
    mutating func answered(_ next: Next) -> DFUMachineAction
    /// The update was cancelled: the protocol's goodbye to the device.
    mutating func cancel() -> DFUMachineAction
    /// An event while saying goodbye.
    mutating func aborting(_ event: DFUMachineEvent) -> DFUMachineAction
}

extension DFUAgendaMachine {
    /// Takes one event from the runner (see ``DFUProtocolMachine``).
    mutating func handleOnAgenda(_ event: DFUMachineEvent) -> DFUMachineAction {
        if isAborting { return aborting(event) }
        switch event {
        case .start:
            enablingNotifications()
            agenda.plan([.action(.enableNotifications(on: notificationEndpoint)), .decide(Self.afterNotificationsEnabled)])
            return proceed()
        case .written, .reported:
            return proceed()
        case .notified(let bytes):
            return answered(received(bytes))
        case .timedOut:
            return answered(timedOut(after: awaitedFor))
        case .delayElapsed:
            return drive(delayElapsed())
        case .disconnected:
            agenda.clear()
            return drive(disconnected())
        case .cancelled:
            return cancel()
        }
    }

    mutating func answered(_ next: Next) -> DFUMachineAction { drive(next) }

    /// Plans `next`'s actions, after `leading` ones, and hands out the first.
    mutating func drive(_ next: Next, after leading: [DFUMachineAgenda<Decision>.Item] = []) -> DFUMachineAction {
        agenda.plan(leading + actions(for: next))
        return proceed()
    }

    /// Hands out the next planned action, or takes the decision the agenda reached.
    mutating func proceed() -> DFUMachineAction {
        switch agenda.next() {
        case .action(let action)?:
            if case .awaitNotification(_, let timeout) = action { awaitedFor = timeout }
            return action
        case .decide(let decision)?:
            return drive(decide(decision))
        case nil:
            // Every plan ends in an await, a decision or the end, each answered by another event than
            // `.written` or `.reported`: a runner that sends one here broke the conversation.
            preconditionFailure("\(Self.self) was asked to proceed with nothing planned (at \(step))")
        }
    }
}
