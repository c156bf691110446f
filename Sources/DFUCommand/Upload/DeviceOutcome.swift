import DFUCore

/// How the update of one device ended.
struct DeviceOutcome: Sendable {
    /// What happened.
    enum Result: Sendable {
        /// Every part in scope is on the device.
        case updated(DFUUpdateReport)
        /// It failed; the message names the cause.
        case failed(ExitCode, String)
        /// Ctrl-C or SIGTERM; the message says where the device was left.
        case interrupted(String)
    }

    /// The device as the user named it.
    let device: String
    /// The result.
    let result: Result
    /// The address of the device that was connected to first, when one was.
    var address: String?
    /// SMP: where each image stood when the update ended (for an interrupted one, as far as the engine knew).
    var smpImages: [SMPImageReport]?
    /// SMP: the command that takes the device on from there (nil: nothing left to do).
    var smpNext: String?

    /// The device for messages: its name with the address it turned out to have, or the address.
    var label: String {
        guard let address, address != device else { return device }
        return "\(device) (\(address))"
    }

    /// The exit code this device alone would give.
    var code: ExitCode {
        switch result {
        case .updated: .success
        case .failed(let code, _): code
        case .interrupted: .interrupted
        }
    }

    /// The exit status of a run: 130 when interrupted, 0 only when every device was updated,
    /// otherwise the code of the first device (in command-line order) that failed.
    static func exitCode(of outcomes: [DeviceOutcome]) -> ExitCode {
        if outcomes.contains(where: { $0.code == .interrupted }) { return .interrupted }
        return outcomes.first(where: { $0.code != .success })?.code ?? .success
    }
}
