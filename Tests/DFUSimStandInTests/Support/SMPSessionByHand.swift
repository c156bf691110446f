import DBus
import DFUCore
import DFUSimStandIn
import Synchronization
import Testing

/// An SMP server on the stand-in, driven by hand over D-Bus: connected, its characteristic subscribed
/// (StartNotify), each request frame built by DFUCore's codec and written with WriteValue type=command in
/// pieces of at most `writeLength` bytes, and the answers joined from the Value notifications by the SMP
/// header's length.
final class SMPSessionByHand: Sendable {
    /// The SMP service and characteristic (`smp_bt.h`), lower case as bluetoothd shows UUIDs.
    static let serviceUUID = "8d53dc1d-1db7-4cd3-868b-8a527460aa84"
    static let characteristicUUID = "da2e7828-fbce-4e01-ae9e-261174997c48"
    static let command = DBusValue.stringVariantDictionary(["type": .string("command")])

    let device: ObjectPath
    let characteristic: ObjectPath
    private let bus: StandInHarness
    private let writeLength: Int
    private let state = Mutex(State())

    private struct State {
        var sequence: UInt8 = 0
        /// Notifications joined so far (of every link: the assembler starts again on a new link).
        var consumed = 0
        var assembler = SMPFrameAssembler()
        var frames: [SMPFrame] = []
    }

    /// Finds the device at `address` by the SMP service, connects and subscribes.
    init(
        _ bus: StandInHarness, address: String = "C0:FF:EE:00:00:10", writeLength: Int = 244, subscribe: Bool = true
    ) async throws {
        self.bus = bus
        self.writeLength = writeLength
        device = try await bus.discover(address, uuids: [Self.serviceUUID])
        try await bus.connect(device)
        characteristic = try #require(try await bus.characteristics(of: device)[Self.characteristicUUID])
        if subscribe { try await self.subscribe() }
    }

    /// StartNotify on the SMP characteristic.
    func subscribe() async throws {
        _ = try await bus.call(characteristic, BlueZNames.gattCharacteristic, "StartNotify")
    }

    /// Connects again after the link dropped (the objects stayed, so did the StartNotify session).
    func reconnect() async throws {
        state.withLock { $0.assembler.reset() }
        try await bus.connect(device)
    }

    /// The frame of `request` with the next sequence number.
    func frame(_ request: SMPRequest) throws -> SMPFrame {
        let sequence = state.withLock { state in
            defer { state.sequence &+= 1 }
            return state.sequence
        }
        return try request.frame(sequence: sequence)
    }

    /// Writes `bytes` in pieces of at most `writeLength` (writes without response).
    func write(_ bytes: [UInt8]) async throws {
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + writeLength)
            _ = try await bus.call(
                characteristic, BlueZNames.gattCharacteristic, "WriteValue",
                [.byteArray(Array(bytes[offset..<end])), Self.command])
            offset = end
        }
    }

    /// Sends `request` and returns its answer decoded.
    func send(_ request: SMPRequest) async throws -> SMPResponse {
        try await write(try frame(request).bytes)
        return try SMPResponse(frame: try await nextFrame(), answering: request.command)
    }

    /// The next whole frame the device notified.
    func nextFrame() async throws -> SMPFrame {
        try await bus.waitUntil("an SMP answer") {
            let notifications = bus.notifications(on: characteristic)
            return try state.withLock { state in
                for notification in notifications.dropFirst(state.consumed) {
                    state.frames += try state.assembler.append(notification)
                }
                state.consumed = notifications.count
                return !state.frames.isEmpty
            }
        }
        return state.withLock { $0.frames.removeFirst() }
    }

    /// The notifications seen so far.
    var notifications: [[UInt8]] { bus.notifications(on: characteristic) }
}
