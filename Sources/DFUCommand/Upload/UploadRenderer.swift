/// Turns upload events into output: live lines, plain lines, JSON Lines, or only errors.
///
/// Events from several devices arrive concurrently; implementations serialise them.
protocol UploadRenderer: Sendable {
    /// Shows one event.
    func handle(_ event: UploadEvent)
    /// Shows the end of the run: a summary naming each failure.
    func finish(_ outcomes: [DeviceOutcome], code: ExitCode)
}
