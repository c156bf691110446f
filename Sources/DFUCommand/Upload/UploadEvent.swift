import DFUCore

/// One thing that happened while updating a device, on its way to the output.
enum UploadEvent: Sendable {
    /// How detailed a log message is.
    enum Level: String, Sendable {
        /// Shown with `-v`.
        case info
        /// Shown with `-vv`: every request and response.
        case trace
    }

    /// The device entered a new phase.
    case state(String, DFUProgress)
    /// Firmware bytes were confirmed; `elapsed` is the time since this device's update began.
    case progress(String, DFUProgress, elapsed: Duration)
    /// A detail for `-v`/`-vv`.
    case log(String, Level, String)
    /// The device's update ended.
    case finished(DeviceOutcome)
}
