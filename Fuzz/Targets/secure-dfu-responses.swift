// libFuzzer target: the Secure DFU response decoder and the Secure DFU state machine it feeds.
//
// The input plays the device. Byte 0 picks the configuration (PRN interval, packet size,
// resume, part kind). Then the harness acts as the runner: it answers `.wait` with
// `delayElapsed()` and packets written without a receipt with `packetsWritten()`; whenever the
// machine waits for the device, the next input byte picks the device's move:
//   0–5  a notification of up to 20 input bytes;
//   6–9  a success response to the last request, `60 <op> 01`, then up to 12 input bytes;
//   10   a timeout;   11  a disconnect.
import DFUCore

private let image: [UInt8] = (0..<1500).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
private let initPacket: [UInt8] = (0..<40).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
private let kinds: [PartKind] = [.application, .softdevice, .bootloader, .softdeviceBootloader]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSecureDFUResponses(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    // Every input is also decoded whole, as one notification.
    if let response = try? SecureDFUResponse(bytes: input.all) { _ = response.description }
    guard let setup = input.byte() else { return 0 }
    let configuration = SecureDFUStateMachine.Configuration(
        packetReceiptNotifications: UInt16(setup & 0x03), packetSize: [20, 64, 244][Int(setup >> 2 & 0x03) % 3],
        resume: setup & 0x10 != 0, firstObjectDelay: .zero)
    var machine = SecureDFUStateMachine(
        kind: kinds[Int(setup >> 5 & 0x03)], initPacket: initPacket, image: image, configuration: configuration)
    var action = machine.start()
    var lastRequest: UInt8 = 0
    // Bounded: each step either reads input or is a runner reply that the next step answers.
    for _ in 0..<10_000 {
        _ = action.description
        switch action {
        case .fail, .awaitReset:
            return 0
        case .wait:
            action = machine.delayElapsed()
            continue
        case .writePackets(_, let awaitReceipt) where !awaitReceipt:
            action = machine.packetsWritten()
            continue
        case .send(let request):
            lastRequest = request.bytes.first ?? 0
        case .writePackets, .awaitNotification:
            break
        }
        guard let move = input.byte() else { return 0 }
        switch move % 12 {
        case 0...5:
            action = machine.received(input.run(maximum: 20))
        case 6...9:
            action = machine.received([0x60, lastRequest, 0x01] + input.run(maximum: 12))
        case 10:
            action = machine.timedOut(after: .seconds(1))
        default:
            action = machine.disconnected()
        }
    }
    return 0
}
