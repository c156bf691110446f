import DFUCore
import Testing
import DFUFormats

/// Device input is never trusted: any notification, at any step, ends in an action or a typed error,
/// and a machine fed nonsense comes to an end (fails or resets) within its step budget instead of going on for ever.
@Suite struct StateMachineRobustnessTests {
    /// A small deterministic generator (xorshift) so failures reproduce.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        mutating func bytes() -> [UInt8] {
            let count = Int(next() % 20)
            // Mostly well-formed prefixes (60 xx yy / 10 xx yy / 11 …) so deeper branches are reached.
            let prefixes: [[UInt8]] = [[0x60], [0x60, 0x03, 0x01], [0x60, 0x06, 0x01], [0x10], [0x11], [0x20], []]
            let prefix = prefixes[Int(next() % UInt64(prefixes.count))]
            return prefix + (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
        }
    }

    @Test(arguments: 1...40)
    func secureMachineNeverTrapsOnRandomNotifications(seed: Int) {
        var random = Generator(state: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1)
        let image = (0..<9_000).map { UInt8(truncatingIfNeeded: $0) }
        var machine = SecureDFUStateMachine(initPacket: [1, 2, 3], image: image, configuration: .init(
            packetReceiptNotifications: UInt16(random.next() % 4), packetSize: 244, firstObjectDelay: .zero))
        var action = machine.start()
        for _ in 0..<200 {
            switch action {
            case .fail, .awaitReset: return
            case .writePackets(_, awaitReceipt: false): action = machine.packetsWritten()
            case .wait: action = machine.delayElapsed()
            default:
                switch random.next() % 10 {
                case 0: action = machine.timedOut(after: .seconds(1))
                case 1: action = machine.disconnected()
                default: action = machine.received(random.bytes())
                }
            }
        }
        if case .fail = action { return }
        if case .awaitReset = action { return }
        Issue.record("the machine neither finished nor failed within 200 steps of nonsense; its last action: \(action)")
    }

    @Test(arguments: 1...40)
    func legacyMachineNeverTrapsOnRandomNotifications(seed: Int) {
        var random = Generator(state: UInt64(seed) &* 0xBF58_476D_1CE4_E5B9 | 1)
        let part = FirmwarePart(kind: .application, image: (0..<500).map { UInt8(truncatingIfNeeded: $0) }, initPacket: [1, 2])
        var machine = LegacyDFUStateMachine(part: part, configuration: .init(
            packetReceiptNotifications: UInt16(random.next() % 3), version: random.next() % 2 == 0 ? nil : LegacyDFUVersion(major: 0, minor: 8)))
        var action = machine.start()
        for _ in 0..<200 {
            switch action {
            case .fail, .awaitReset, .resetAndRestart: return
            case .send(let request) where !request.expectsResponse: action = machine.requestWritten()
            case .writePackets(_, awaitReceipt: false): action = machine.packetsWritten()
            case .wait: action = machine.delayElapsed()
            default:
                switch random.next() % 10 {
                case 0: action = machine.timedOut(after: .seconds(1))
                case 1: action = machine.disconnected()
                default: action = machine.received(random.bytes())
                }
            }
        }
        if case .fail = action { return }
        if case .awaitReset = action { return }
        if case .resetAndRestart = action { return }
        Issue.record("the machine neither finished nor failed within 200 steps of nonsense; its last action: \(action)")
    }

    @Test(arguments: 1...20)
    func buttonlessMachineNeverTrapsOnRandomNotifications(seed: Int) {
        var random = Generator(state: UInt64(seed) | 1)
        var machine = ButtonlessStateMachine(variant: .withoutBonds, alternativeName: "Dfu00001")
        var action = machine.start()
        for _ in 0..<20 {
            guard case .send = action else { return }
            action = random.next() % 8 == 0 ? machine.disconnected() : machine.received(random.bytes())
        }
        guard case .send = action else { return }
        Issue.record("the machine neither finished nor failed within 20 steps of nonsense; its last action: \(action)")
    }
}
