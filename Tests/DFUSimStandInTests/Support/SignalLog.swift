import DBus
import Synchronization

/// Every signal received, in order.
final class SignalLog: Sendable {
    private let storage = Mutex<[DBusMessage]>([])
    func append(_ message: DBusMessage) { storage.withLock { $0.append(message) } }
    var messages: [DBusMessage] { storage.withLock { $0 } }
}
