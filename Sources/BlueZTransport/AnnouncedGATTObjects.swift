import BlueZ
import Synchronization

/// The GATT objects of the adapter's devices as bluetoothd announced them, kept as the bus connection reads the
/// signals (``BlueZClient/events(gattObjects:)``): a reply bluetoothd sent after an announcement finds it here.
///
/// Announcements read before the `GetManagedObjects` the transport opens with is in (``seed(_:adapter:)``) wait, and
/// are then laid over its objects in the order they came: each is newer than the reply, or says what the reply says
/// already, so the last word on each object is the newest.
final class AnnouncedGATTObjects: Sendable {
    private struct State {
        var objects = GATTObjects()
        var adapter: BlueZPath?
        var waiting: [BlueZGattObjectChange] = []

        mutating func apply(_ change: BlueZGattObjectChange) {
            guard let adapter else {
                waiting.append(change)
                return
            }
            switch change {
            case .serviceAdded(let service):
                if adapter.isAncestor(of: service.path) { objects.add(service) }
            case .characteristicAdded(let characteristic):
                if adapter.isAncestor(of: characteristic.path) { objects.add(characteristic) }
            case .removed(let path):
                objects.remove(below: path)
            }
        }
    }

    private let state = Mutex(State())

    /// Takes one announcement (from the bus connection's thread).
    func announce(_ change: BlueZGattObjectChange) {
        state.withLock { $0.apply(change) }
    }

    /// Starts from `tree` (the objects below `adapter`), then the announcements that waited for it.
    func seed(_ tree: BlueZObjectTree, adapter: BlueZPath) {
        state.withLock { state in
            state.objects = GATTObjects(tree, below: adapter)
            state.adapter = adapter
            let waiting = state.waiting
            state.waiting = []
            for change in waiting { state.apply(change) }
        }
    }

    /// Forgets every object: bluetoothd left the bus, and a restarted one announces what it has anew.
    func removeAll() {
        state.withLock { $0.objects.removeAll() }
    }

    /// The objects now.
    var objects: GATTObjects { state.withLock { $0.objects } }
}
