public import DFUCore
import DFUFormats

/// One thing the in-memory transport saw, time-stamped in virtual time.
public struct SimulatedTraceEntry: Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    public enum Event: Sendable, Hashable {
        /// The central connected to this address.
        case connected(DFUDeviceAddress)
        /// The central wrote to an endpoint.
        case write(DFUEndpoint, [UInt8])
        /// The device notified/indicated on an endpoint.
        case notification(DFUEndpoint, [UInt8])
        /// A packet was lost on the air (fault). Drops by a full receive queue happen inside the
        /// bootloader and are not visible on the air.
        case lostOnAir(DFUEndpoint, [UInt8])
        /// The link dropped.
        case disconnected
    }

    /// When.
    public let time: Duration
    /// What.
    public let event: Event

    /// e.g. "0.123 s write Secure DFU Control Point 06 01".
    public var description: String {
        let when = "\(time)"
        switch event {
        case .connected(let address): return "\(when) connected \(address)"
        case .write(let endpoint, let bytes): return "\(when) write \(endpoint) \(bytes.hexDescription)"
        case .notification(let endpoint, let bytes): return "\(when) notify \(endpoint) \(bytes.hexDescription)"
        case .lostOnAir(let endpoint, let bytes): return "\(when) lost \(endpoint) \(bytes.count) bytes"
        case .disconnected: return "\(when) disconnected"
        }
    }
}
