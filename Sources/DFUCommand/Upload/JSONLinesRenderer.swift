import DFUCore
import DFUFormats

/// `--json`: one ``JSONEvent`` per line on standard output and nothing else there; failures are also
/// named on standard error.
final class JSONLinesRenderer: UploadRenderer {
    private let context: CommandContext

    /// Writes to the context's standard output.
    init(context: CommandContext) {
        self.context = context
    }

    func handle(_ event: UploadEvent) {
        switch event {
        case .state(let device, let progress):
            var line = JSONEvent("state", device: device)
            line.state = ProgressText.jsonState(progress.state)
            line.part = progress.part
            line.parts = progress.totalParts
            emit(line)
        case .progress(let device, let progress, let elapsed):
            var line = JSONEvent("progress", device: device)
            line.part = progress.part
            line.parts = progress.totalParts
            line.bytes = progress.bytesSent
            line.total = progress.totalBytes
            // No figure until the transfer ran long enough to measure one.
            line.speed = progress.currentSpeed > 0 ? Int(progress.currentSpeed.rounded()) : nil
            line.average = progress.averageSpeed > 0 ? Int(progress.averageSpeed.rounded()) : nil
            line.elapsed = Self.rounded(elapsed.dfuSecondsValue)
            emit(line)
        case .log(let device, let level, let message):
            var line = JSONEvent("log", device: device)
            line.level = level.rawValue
            line.message = message
            emit(line)
        case .finished(let outcome):
            var done = JSONEvent("done", device: outcome.device)
            done.address = outcome.address
            done.exitCode = outcome.code.rawValue
            switch outcome.result {
            case .updated(let report):
                // As the result line: "updated" only when every SMP image runs confirmed; an upload left marked
                // (--no-reset) or running on test is "uploaded", and `images`/`next` say where it stands.
                done.result = report.isUpdated ? "updated" : "uploaded"
                done.partsSent = report.smpImages.isEmpty ? report.partsSent.map(\.rawValue)
                    : report.smpImages.map { SMPImageText.partName($0.image) }
                done.partsSkipped = report.partsSkipped.map(\.rawValue)
                done.bytes = report.bytesTransferred
                done.seconds = Self.rounded(report.elapsed.dfuSecondsValue)
                done.average = report.transferSpeed.map { Int($0.rounded()) }
            case .failed(_, let message), .interrupted(let message):
                var error = JSONEvent("error", device: outcome.device)
                error.address = outcome.address
                error.exitCode = outcome.code.rawValue
                error.message = message
                emit(error)
                context.writeError(TerminalText.lines("dfu: \(outcome.label): \(message)\n"))
                done.result = outcome.code == .interrupted ? "interrupted" : "failed"
                done.message = message
            }
            if let images = outcome.smpImages {
                done.images = images.map { JSONEvent.JSONImage(image: $0.image, state: $0.state.rawValue) }
                done.next = outcome.smpNext
            }
            emit(done)
        }
    }

    func finish(_ outcomes: [DeviceOutcome], code: ExitCode) {
        var summary = JSONEvent("summary")
        summary.exitCode = code.rawValue
        let succeeded = outcomes.compactMap { outcome -> DFUUpdateReport? in
            guard outcome.code == .success, case .updated(let report) = outcome.result else { return nil }
            return report
        }
        summary.updated = succeeded.filter(\.isUpdated).count
        let uploaded = succeeded.count - (summary.updated ?? 0)
        summary.uploaded = uploaded > 0 ? uploaded : nil
        summary.failed = outcomes.filter { $0.code != .success }.map(\.device)
        emit(summary)
    }

    private func emit(_ event: JSONEvent) {
        guard let line = try? JSONLine.encoded(event) else { return }
        context.writeOutput(line)
    }

    private static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}
