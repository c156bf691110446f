public import BlueZ
import IOLoop

extension BlueZTransport {
    /// Discovers for `duration` (LE, optionally only `serviceUUIDs`) and returns every device heard, strongest first.
    public func scan(for duration: Duration, serviceUUIDs: [String] = []) async throws(BlueZError) -> [BlueZDevice] {
        heard = []
        try await client.setDiscoveryFilter(adapter: adapter.path, serviceUUIDs: discoveryFilterUUIDs(serviceUUIDs.map(BlueZUUID.canonical)))
        do {
            try await client.startDiscovery(adapter: adapter.path)
        } catch .inProgress {
            // Someone else is discovering on this adapter: their results reach us too.
        }
        await loop.sleep(until: ContinuousClock.now.advanced(by: duration))
        // Taken before StopDiscovery, which makes BlueZ drop the RSSI values, and from bluetoothd itself: a report it
        // made within the window counts even when its signal is still unread here (a process starved on a busy
        // host). The table of signals handled is the answer only when bluetoothd cannot be asked.
        // The filter's UUIDs, matched here too: bluetoothd may have been given none (``discoveryFilterUUIDs(_:)``).
        let wanted = Set(serviceUUIDs.map(BlueZUUID.canonical))
        let known = await devicesKnownToBlueZ() ?? Array(devices.values)
        let found = known.filter { heard.contains($0.path) || $0.rssi != nil }
            .filter { wanted.isEmpty || !wanted.isDisjoint(with: $0.serviceUUIDs.map(BlueZUUID.canonical)) }
            .sorted { ($0.rssi ?? Int.min, $1.address) > ($1.rssi ?? Int.min, $0.address) }
        try? await client.stopDiscovery(adapter: adapter.path)
        if isBlueZGone { throw .notRunning }
        return found
    }
}

extension BlueZTransport {
    /// The UUIDs to give bluetoothd's discovery filter: `uuids`, or none for a bluetoothd that dies when an
    /// advertisement matches them (5.87, ``BluetoothdRelease/diesOnDiscoveryUUIDMatch``); the selector's own match
    /// then keeps only the devices advertising them, as it does for every device heard.
    nonisolated func discoveryFilterUUIDs(_ uuids: [String]) -> [String] {
        adapter.bluetoothdRelease?.diesOnDiscoveryUUIDMatch == true ? [] : uuids
    }
}
