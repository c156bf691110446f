import DFUCore
import Synchronization

/// Progress on a terminal: one line per device, redrawn in place, with the state in colour
/// unless `NO_COLOR` is set. Messages (`-v`) scroll above the block of lines.
final class LiveProgressRenderer: UploadRenderer {
    /// The shortest time between two redraws of one device's line (phase changes always redraw).
    static let redrawInterval: Duration = .milliseconds(100)

    private enum Colour: String {
        case green = "32", red = "31", yellow = "33", cyan = "36"
    }

    private struct Line {
        var text: String
        var status: String
        var colour: Colour
        var drawnAt: Duration?
        var state: DFUState?
    }

    private struct Screen {
        var order: [String]
        var lines: [String: Line]
        var drawn = 0
    }

    private let context: CommandContext
    private let colour: Bool
    private let labelled: Bool
    private let width: Int
    /// The bar's width for the whole run: 20 cells when the widest line fits with them, else 10.
    private let barWidth: Int
    private let screen: Mutex<Screen>

    /// A block with one "waiting" line per device, in command-line order.
    init(context: CommandContext, devices: [String], colour: Bool) {
        self.context = context
        self.colour = colour
        labelled = devices.count > 1
        width = max(40, context.terminalColumns ?? 80)
        // The widest a line gets: 8-digit byte counts, three-digit speeds, the longest state.
        let widest = DFUProgress(state: .uploading, part: 9, totalParts: 9, bytesSent: 99_999_999, totalBytes: 99_999_999,
                                 currentSpeed: 999_999, averageSpeed: 999_999)
        let label = devices.count > 1 ? devices.max(by: { $0.count < $1.count }) : nil
        let room = width - 1 - "disconnecting".count - 2
        barWidth = ProgressText.line(device: label, widest, state: false).count <= room ? 20 : 10
        var lines: [String: Line] = [:]
        for device in devices { lines[device] = Line(text: devices.count > 1 ? device : "", status: "waiting", colour: .yellow) }
        screen = Mutex(Screen(order: devices, lines: lines))
    }

    func handle(_ event: UploadEvent) {
        screen.withLock { screen in
            switch event {
            case .state(let device, let progress):
                var line = screen.lines[device] ?? Line(text: labelled ? device : "", status: "", colour: .yellow)
                line.text = progressText(device: device, progress)
                line.status = ProgressText.state(progress.state)
                line.colour = progress.state == .uploading ? .cyan : progress.state == .completed ? .green : .yellow
                line.state = progress.state
                screen.lines[device] = line
                redraw(&screen, above: nil)
            case .progress(let device, let progress, let elapsed):
                var line = screen.lines[device] ?? Line(text: "", status: "", colour: .cyan)
                if let drawnAt = line.drawnAt, elapsed - drawnAt < Self.redrawInterval, progress.percent < 100 { return }
                line.drawnAt = elapsed
                line.text = progressText(device: device, progress)
                line.status = ProgressText.state(progress.state)
                line.colour = .cyan
                screen.lines[device] = line
                redraw(&screen, above: nil)
            case .log(let device, _, let message):
                redraw(&screen, above: "\(device): \(message)")
            case .finished(let outcome):
                switch outcome.result {
                case .updated(let report):
                    screen.lines[outcome.device] = Line(
                        text: ProgressText.updated(device: outcome.label, target: outcome.device, report), status: "done", colour: .green)
                case .failed(_, let message):
                    screen.lines[outcome.device] = Line(text: "\(outcome.label): \(message)", status: "failed", colour: .red)
                case .interrupted:
                    screen.lines[outcome.device] = Line(text: "\(outcome.label): interrupted", status: "aborted", colour: .red)
                }
                redraw(&screen, above: nil)
            }
        }
    }

    func finish(_ outcomes: [DeviceOutcome], code: ExitCode) {
        // Nothing is redrawn after this: the final lines may wrap instead of being cut.
        screen.withLock { redraw(&$0, above: nil, cut: false) }
        var text = ""
        for outcome in outcomes {
            switch outcome.result {
            case .updated: break
            case .failed(_, let message), .interrupted(let message): text += "dfu: \(outcome.label): \(message)\n"
            }
        }
        if outcomes.count > 1 { text += ProgressText.summary(outcomes) + "\n" }
        if !text.isEmpty { context.writeError(TerminalText.lines(text)) }
    }

    /// The widest form of the progress line that fits the terminal (the state is added by ``render(_:)``);
    /// the device is named only when there are several.
    private func progressText(device: String, _ progress: DFUProgress) -> String {
        let label = labelled ? device : nil
        let room = width - 1 - ProgressText.state(progress.state).count - 2
        let forms = [
            ProgressText.line(device: label, progress, barWidth: barWidth, state: false),
            ProgressText.line(device: label, progress, barWidth: barWidth, bytes: false, state: false),
            ProgressText.line(device: label, progress, barWidth: barWidth, bytes: false, average: false, state: false),
        ]
        return forms.first { $0.count <= room } ?? forms[forms.count - 1]
    }

    /// Moves to the top of the block, prints `message` there (it scrolls up), and draws every line again.
    private func redraw(_ screen: inout Screen, above message: String?, cut: Bool = true) {
        var output = screen.drawn > 0 ? "\u{1B}[\(screen.drawn)A\r" : ""
        if let message { output += "\u{1B}[J" + TerminalText.escaped(message) + "\n" }
        for device in screen.order {
            guard let line = screen.lines[device] else { continue }
            output += "\u{1B}[2K" + render(line, cut: cut) + "\n"
        }
        screen.drawn = screen.order.count
        context.writeError(output)
    }

    /// The line cut to the terminal's width (so it never wraps), the status coloured.
    private func render(_ line: Line, cut: Bool = true) -> String {
        let room = width - 1 - line.status.count - 2
        var text = TerminalText.escaped(line.text)
        if cut && text.count > room { text = String(text.prefix(max(0, room - 1))) + "…" }
        let status = colour ? "\u{1B}[\(line.colour.rawValue)m\(line.status)\u{1B}[0m" : line.status
        return text.isEmpty ? status : text + "  " + status
    }
}
