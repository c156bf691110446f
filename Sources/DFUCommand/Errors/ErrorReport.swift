import SystemSupport
import DFUCore
import DFUCrypto
import DFUFormats

/// The one place that turns an error into a one-line message on standard error and an exit code.
enum ErrorReport {
    /// Writes `dfu: <message>` and returns the exit code for `error`.
    static func report(_ error: any Error, context: CommandContext) -> ExitCode {
        let (code, message) = classify(error)
        var line = "dfu: \(message)"
        if let usage = error as? UsageError {
            let topic = usage.command.map { "dfu \($0) --help" } ?? "dfu --help"
            line += " (see '\(topic)')"
        }
        context.writeError(TerminalText.escaped(line.replacingNewlines) + "\n")
        return code
    }

    /// The exit code and the message for `error`.
    static func classify(_ error: any Error) -> (ExitCode, String) {
        switch error {
        case let error as UsageError: (.usage, error.description)
        case let error as AmbiguousNameError: (.usage, error.description)
        case let error as FileReadError: (.noInput, error.description)
        case let error as FileWriteError: (.cannotCreate, error.description)
        case let error as PackageGenerationError: (error.isUsage ? .usage : .badPackage, error.description)
        case let error as ECDSAP256.KeyError: (.badPackage, error.description)
        case let error as BadInputError: (.badPackage, error.description)
        case let error as TransportUnavailableError: (.unavailable, error.description)
        case let error as UnsafeSetupError: (.unsafeSetup, error.description)
        case let error as DeviceLock.Failure:
            if case .busy = error { (.busy, error.description) } else { (.unsafeSetup, error.description) }
        case let error as DeviceStateError: (.deviceRejected, error.description)
        case let error as InterruptedError: (.interrupted, error.description)
        // bluetoothd refused to open the adapter or to scan (not a device's answer).
        case let error as DFUTransportError:
            if case .hostUnavailable = error { (.unavailable, error.description) } else { (.deviceNotFound, error.description) }
        case let error as DFUError: (exitCode(for: error), error.description)
        case let failure as SMPDeviceRequest.RequestFailure: (exitCode(for: failure.error), failure.description)
        default: (.software, "internal error: \(String(describing: error))")
        }
    }
}

extension ErrorReport {
    /// The exit code for an engine error: 1 when the device refused or broke the update, 2 when it
    /// could not be found, connected or stopped answering, 65 when the package cannot be sent to it, 130 when
    /// the update was cancelled.
    static func exitCode(for error: DFUError) -> ExitCode {
        // Bluetooth on this host went away (bluetoothd, the adapter): the host's problem, not the device's.
        if case .transport(_, .hostUnavailable) = error { return .unavailable }
        if error.isConnectionFailure { return .deviceNotFound }
        return switch error {
        case .remote, .crcMismatch, .unexpectedResponse, .unsupportedDevice, .outOfRange, .offsetMovedBack: .deviceRejected
        case .timeout, .disconnected, .deviceNotFound, .bootloaderNotFound, .deadlineExceeded: .deviceNotFound
        case .transport(_, let cause):
            switch cause {
            case .disconnected, .timedOut, .deviceNotFound: .deviceNotFound
            case .hostUnavailable: .unavailable
            case .interrupted: .interrupted
            case .endpointMissing, .attError, .pairingFailed, .failed: .deviceRejected
            }
        case .protocolMismatch, .firmwareMismatch, .invalidPart: .badPackage
        case .aborted: .interrupted
        }
    }
}

extension String {
    /// The text on one line: newlines become "; ".
    var replacingNewlines: String {
        split(whereSeparator: \.isNewline).joined(separator: "; ")
    }
}
