/// What the buttonless state machine asks the runner to do next.
public enum ButtonlessAction: Sendable, Hashable {
    /// Write the request to the buttonless characteristic (with response), then feed the next notification.
    case send(ButtonlessRequest)
    /// The application is rebooting into its bootloader; find it (with this name if one was set).
    case jumped(bootloaderName: String?)
    /// Stop with this error.
    case fail(DFUError)
}
