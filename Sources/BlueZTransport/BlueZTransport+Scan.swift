public import BlueZ
import IOLoop

extension BlueZTransport {
    /// Discovers for `duration` (LE, optionally only `serviceUUIDs`) and returns every device heard, strongest first.
    public func scan(for duration: Duration, serviceUUIDs: [String] = []) async throws(BlueZError) -> [BlueZDevice] {
        heard = []
        try await client.setDiscoveryFilter(adapter: adapter.path, serviceUUIDs: serviceUUIDs.map(BlueZUUID.canonical))
        do {
            try await client.startDiscovery(adapter: adapter.path)
        } catch .inProgress {
            // Someone else is discovering on this adapter: their results reach us too.
        }
        await loop.sleep(until: ContinuousClock.now.advanced(by: duration))
        // Taken before StopDiscovery, which makes BlueZ drop the RSSI values.
        let found = devices.values.filter { heard.contains($0.path) || $0.rssi != nil }
            .sorted { ($0.rssi ?? Int.min, $1.address) > ($1.rssi ?? Int.min, $0.address) }
        try? await client.stopDiscovery(adapter: adapter.path)
        if isBlueZGone { throw .notRunning }
        return found
    }
}
