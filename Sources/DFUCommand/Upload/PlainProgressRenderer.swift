import DFUCore
import Synchronization

/// Progress for pipes and CI logs: whole lines without control characters, one per phase change
/// and otherwise at most every ``interval`` or every 10 %. With `quiet`, only errors.
final class PlainProgressRenderer: UploadRenderer {
    /// The longest silence during an upload.
    static let interval: Duration = .seconds(5)

    private struct DeviceState {
        var state: DFUState?
        var part = 0
        var decile = -1
        var printedAt: Duration = .zero
    }

    private let context: CommandContext
    private let quiet: Bool
    private let devices = Mutex<[String: DeviceState]>([:])

    /// Writes to the context's standard error.
    init(context: CommandContext, quiet: Bool) {
        self.context = context
        self.quiet = quiet
    }

    func handle(_ event: UploadEvent) {
        switch event {
        case .state(let device, let progress):
            guard !quiet else { return }
            let changed = devices.withLock { devices in
                var state = devices[device, default: DeviceState()]
                defer { devices[device] = state }
                guard state.state != progress.state || state.part != progress.part else { return false }
                state.state = progress.state
                state.part = progress.part
                state.decile = -1
                return true
            }
            if changed {
                context.writeError(TerminalText.lines("\(device): part \(progress.part)/\(progress.totalParts) \(ProgressText.state(progress.state))\n"))
            }
        case .progress(let device, let progress, let elapsed):
            // Validation has its state line already; a progress line would say it twice.
            guard !quiet, progress.state == .uploading else { return }
            let due = devices.withLock { devices in
                var state = devices[device, default: DeviceState()]
                defer { devices[device] = state }
                let decile = progress.percent / 10
                guard decile > state.decile || elapsed - state.printedAt >= Self.interval else { return false }
                state.decile = decile
                state.printedAt = elapsed
                return true
            }
            if due { context.writeError(TerminalText.lines(ProgressText.line(device: device, progress) + "\n")) }
        case .log(let device, _, let message):
            context.writeError(TerminalText.lines("\(device): \(message)\n"))
        case .finished(let outcome):
            switch outcome.result {
            case .updated(let report):
                if !quiet { context.writeError(TerminalText.lines(ProgressText.updated(device: outcome.label, target: outcome.device, report) + "\n")) }
            case .failed(_, let message), .interrupted(let message):
                context.writeError(TerminalText.lines("dfu: \(outcome.label): \(message)\n"))
            }
        }
    }

    func finish(_ outcomes: [DeviceOutcome], code: ExitCode) {
        guard outcomes.count > 1, !quiet || code != .success else { return }
        context.writeError(TerminalText.lines(ProgressText.summary(outcomes) + "\n"))
    }
}
