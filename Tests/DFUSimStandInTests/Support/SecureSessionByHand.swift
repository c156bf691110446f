import DBus
import DFUSimStandIn
import Synchronization
import Testing

/// A Secure bootloader on the stand-in, driven by hand over D-Bus: connected, its control point
/// subscribed (StartNotify), and each request written with WriteValue type=request and answered by
/// the next notification.
final class SecureSessionByHand: Sendable {
    let device: ObjectPath
    let controlPoint: ObjectPath
    let packet: ObjectPath
    private let bus: StandInHarness
    /// Notifications consumed so far on the control point.
    private let answered = Mutex(0)

    /// Connects to the Secure bootloader at `address` and subscribes to its control point.
    init(_ bus: StandInHarness, address: String = "C0:FF:EE:00:00:10") async throws {
        self.bus = bus
        device = try await bus.discover(address)
        try await bus.connect(device)
        let characteristics = try await bus.characteristics(of: device)
        controlPoint = try #require(characteristics[SecureDFUByHand.controlPoint])
        packet = try #require(characteristics[SecureDFUByHand.packet])
        _ = try await bus.call(controlPoint, BlueZNames.gattCharacteristic, "StartNotify")
    }

    /// Writes `request` to the control point and returns its answer (`60 opcode result …`).
    func send(_ request: [UInt8]) async throws -> [UInt8] {
        _ = try await bus.call(
            controlPoint, BlueZNames.gattCharacteristic, "WriteValue",
            [.byteArray(request), .stringVariantDictionary(["type": .string("request")])])
        let count = answered.withLock { count in
            count += 1
            return count
        }
        return try await bus.notification(count, on: controlPoint)
    }
}
