/// How a ``DFUProtocolMachine`` left its connection.
public enum DFUMachineOutcome: Sendable, Hashable, CustomStringConvertible {
    /// The part is on the device, which validates, activates and drops the link: the runner waits for
    /// the disconnection and counts the part as sent.
    case awaitReset
    /// The machine reset the device: the runner waits for the disconnection, reconnects and runs the part
    /// again with a new machine (``DFUMachineSetup/restarts`` one higher).
    case restart
    /// The link is, or may be, lost: the runner reconnects (within its reconnection budget) and runs the part
    /// again with a new machine, which resumes where the device allows. The error is what is thrown when
    /// no reconnection is left.
    case reconnect(DFUError)
    /// The application is rebooting into its bootloader, to advertise this name if one was accepted: the runner
    /// waits for the disconnection and looks for the bootloader.
    case jumped(bootloaderName: String?)
    /// Done; the link stays up and nothing more is expected of it.
    case completed

    /// A short trace line.
    public var description: String {
        switch self {
        case .awaitReset: "await reset"
        case .restart: "restart"
        case .reconnect(let error): "reconnect after: \(error)"
        case .jumped(let name): "jumped" + (name.map { " (bootloader name \($0))" } ?? "")
        case .completed: "completed"
        }
    }
}
