import Foundation
import Synchronization

/// Bytes read on another thread, handed over once it is done.
final class ReceivedData: Sendable {
    private let value = Mutex(Data())
    func set(_ data: Data) { value.withLock { $0 = data } }
    func get() -> Data { value.withLock { $0 } }
}
