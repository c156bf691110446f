import DFUFormats
/// Switching a Legacy DFU application into its bootloader, as a pure state machine the runner drives.
///
/// An SDK 7–11 application with the DFU service (DFU Version 0.1) jumps into its bootloader when it is
/// asked to start a DFU of an application (`01 04` on the control point): the application's DFU handler
/// (SDK 11 `dfu_app_handler.c`, `dfu_app_on_dfu_evt`) calls `bootloader_start`, which resets the device.
/// It may reset before acknowledging, so a lost link after the request is the expected end, and no answer
/// is awaited.
public struct LegacyJumpStateMachine: DFUProtocolMachine {
    private enum Phase: Sendable, Hashable { case idle, enablingNotifications, requesting, done, failed }

    private var phase: Phase = .idle

    /// Makes a machine for ``DFUMachineSetup/Work/enterBootloader(alternativeName:)`` (a Legacy application cannot
    /// rename its bootloader: nothing else in the setup changes what it does).
    public init(_ setup: DFUMachineSetup) {
        guard case .enterBootloader = setup.work else {
            preconditionFailure("a Legacy jump machine was made for \(setup.work), not to enter the bootloader")
        }
    }

    /// The step, for errors.
    public var step: DFUStep { phase == .idle || phase == .enablingNotifications ? .enablingNotifications : .enteringBootloader }

    /// Takes one event from the runner.
    public mutating func handle(_ event: DFUMachineEvent) -> DFUMachineAction {
        switch (phase, event) {
        case (.idle, .start):
            phase = .enablingNotifications
            return .enableNotifications(on: .legacyControlPoint)
        case (.enablingNotifications, .written):
            phase = .requesting
            return .write([LegacyDFURequest.startDFU(.application).bytes], to: .legacyControlPoint, type: .withResponse)
        case (.enablingNotifications, .disconnected):
            phase = .failed
            return .fail(.disconnected(step: .enablingNotifications, attempts: 1))
        case (.requesting, .written), (.requesting, .disconnected):
            phase = .done
            return .finish(.jumped(bootloaderName: nil))
        case (_, .cancelled):
            phase = .failed
            return .fail(.aborted(step: .enteringBootloader))
        default:
            // It awaits no notification and asks for no wait or report: any other event is the runner's mistake.
            preconditionFailure("a Legacy jump machine in phase \(phase) got \(event), which it never asks for")
        }
    }
}
