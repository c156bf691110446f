import DFUCore

/// No device matched within the scan timeout: the engine reports it as an unsupported device,
/// the command line as "not found" (exit 2).
struct DeviceNotFoundError: Error, Sendable, CustomStringConvertible {
    /// What was looked for.
    let selector: DFUDeviceSelector
    /// For how long.
    let scanTimeout: Duration

    var description: String {
        "no device matching \(selector) was found within \(ProgressText.seconds(scanTimeout)); check that it is powered, in range and advertising, or raise --scan-timeout"
    }
}
