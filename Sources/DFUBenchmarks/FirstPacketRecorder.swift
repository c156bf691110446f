import DFUCore
import Synchronization
import SystemSupport

/// A ``DFUTransport`` that passes everything to another and notes the CLOCK_MONOTONIC time of the first
/// write to the Secure DFU Packet characteristic and of the first one after the first data Create.
final class FirstPacketRecorder<Base: DFUTransport>: DFUTransport {
    let base: Base
    private let times = Mutex<(first: UInt64?, firstFirmware: UInt64?, created: Bool)>((nil, nil, false))

    init(_ base: Base) { self.base = base }

    /// Nanoseconds of CLOCK_MONOTONIC.
    static func monotonicNanoseconds() -> UInt64 {
        SystemClock.monotonicNanoseconds
    }

    /// The first packet write and the first firmware packet write, if any.
    var firstWrites: (first: UInt64?, firstFirmware: UInt64?) { times.withLock { ($0.first, $0.firstFirmware) } }

    func connect(_ parameters: DFUConnectParameters) async throws(DFUTransportError) -> DFUPeer {
        try await base.connect(parameters)
    }

    func enableNotifications(on endpoint: DFUEndpoint) async throws(DFUTransportError) {
        try await base.enableNotifications(on: endpoint)
    }

    func write(_ bytes: [UInt8], to endpoint: DFUEndpoint, type: DFUWriteType) async throws(DFUTransportError) {
        if endpoint == .securePacket {
            let now = Self.monotonicNanoseconds()
            times.withLock { times in
                if times.first == nil { times.first = now }
                if times.created, times.firstFirmware == nil { times.firstFirmware = now }
            }
        } else if endpoint == .secureControlPoint, bytes.first == 0x01, bytes.dropFirst().first == 0x02 {
            times.withLock { $0.created = true }  // Create (0x01) of a data object (0x02)
        }
        try await base.write(bytes, to: endpoint, type: type)
    }

    func read(_ endpoint: DFUEndpoint) async throws(DFUTransportError) -> [UInt8] { try await base.read(endpoint) }

    func nextNotification(within timeout: Duration) async throws(DFUTransportError) -> DFUNotification {
        try await base.nextNotification(within: timeout)
    }

    func waitForDisconnection(within timeout: Duration) async -> Bool { await base.waitForDisconnection(within: timeout) }

    func disconnect() async { await base.disconnect() }
}
