/// A DFU protocol over one connection, as a pure state machine the runner drives.
///
/// Every protocol (Secure, Legacy, Buttonless, and any other) conforms, and one loop in ``DFURunner``
/// drives them all: it feeds ``DFUMachineEvent``s to ``handle(_:)`` and carries out the
/// ``DFUMachineAction`` each one returns, knowing no opcode. The machine decides everything that is
/// protocol: what to write where, how long to wait for which notification, what a timeout or a lost
/// link means, how to abort, what progress to report and when to fall back to slower settings.
///
/// The conversation starts with `.start` and ends when the machine returns `.finish` or `.fail`:
///
/// - `.write`, `.lastWrite` and `.enableNotifications` are answered with `.written` (or `.disconnected`);
/// - `.awaitNotification(from:within:)` with `.notified(bytes)` (only notifications from that endpoint)
///   or `.timedOut` when none came within the duration the machine chose;
/// - `.wait` with `.delayElapsed`; `.report` with `.reported`;
/// - at any point the runner may answer `.cancelled` instead (the user interrupted): the machine then
///   says goodbye to the device its own way (typically a `.lastWrite` of its Abort or Reset request,
///   a report of `.aborted`) and ends with `.fail(.aborted(step:))`.
///
/// A protocol with several requests in flight needs nothing more: it returns one `.write` of several
/// frames (without response), then `.awaitNotification` once per answer, each with its own timeout,
/// and decides on every `.notified` or `.timedOut` whether to write again (another frame, a retransmission)
/// or keep waiting. Nothing in the loop counts requests: that state is the machine's.
///
/// A machine never blocks, sleeps, reads a clock or does I/O, so it can be stepped synchronously in tests
/// with byte fixtures.
public protocol DFUProtocolMachine: Sendable {
    /// Makes a machine for one connection: the part to send (none when only switching a device into its
    /// bootloader), the options, the device as connected, and what the runner learnt of it before.
    /// Every machine takes its settings (PRN, timeouts, packet size, delays, attempts) from here alone.
    init(_ setup: DFUMachineSetup)

    /// Where the machine is, for errors (a transport failure the runner cannot hand back is reported at
    /// this step) and logs.
    var step: DFUStep { get }

    /// Takes one event and returns the next action.
    mutating func handle(_ event: DFUMachineEvent) -> DFUMachineAction
}
