import Synchronization

/// Progress lines collected from the runner's handler.
final class ProgressLog: Sendable {
    private let entries = Mutex<[String]>([])
    func append(_ line: String) { entries.withLock { $0.append(line) } }
    var lines: [String] { entries.withLock { $0 } }
}
