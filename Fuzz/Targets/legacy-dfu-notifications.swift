// libFuzzer target: the Legacy DFU notification and version decoders, and the Legacy DFU state
// machine they feed.
//
// The input plays the device. Byte 0 picks the configuration (PRN interval, the DFU Version
// characteristic or none, part kind). The harness acts as the runner: `.wait` gets
// `delayElapsed()`, requests without a response get `requestWritten()`, packets without a receipt
// get `packetsWritten()`, and `.resetAndRestart` starts one new machine with `restarted: true`.
// Whenever the machine waits for the device, the next input byte picks the device's move:
//   0–3  a notification of up to 20 input bytes;
//   4–6  a response to the last request, `10 <op> <status byte from the input>`;
//   7–8  a truthful packet receipt: `11` and the firmware bytes written so far;
//   9    a packet receipt, `11` then up to 4 input bytes;
//   10   a timeout;   11  a disconnect;   12  success for the last request, `10 <op> 01`.
import DFUCore
import DFUFormats

private let image: [UInt8] = (0..<1500).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 3) }
private let initPacket: [UInt8] = (0..<14).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 5) }
private let kinds: [PartKind] = [.application, .softdevice, .bootloader, .softdeviceBootloader]
private let versions: [LegacyDFUVersion?] = [
    nil, LegacyDFUVersion(major: 0, minor: 5), LegacyDFUVersion(major: 0, minor: 6), LegacyDFUVersion(major: 0, minor: 8),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLegacyDFUNotifications(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    // Every input is also decoded whole, as one notification and as a version value.
    if let notification = try? LegacyDFUNotification(bytes: input.all) {
        _ = notification.description
        // Re-encoding is stable: what it writes decodes to the same notification.
        if (try? LegacyDFUNotification(bytes: notification.bytes)) != notification {
            fatalError("a notification that re-encodes differently")
        }
    }
    // Request decoding is strict: whatever decodes re-encodes to exactly the input.
    if let request = try? LegacyDFURequest(bytes: input.all), request.bytes != input.all {
        fatalError("a request that re-encodes differently")
    }
    if let version = LegacyDFUVersion(bytes: input.all) { _ = (version.description, version.isApplication) }
    guard let setup = input.byte() else { return 0 }
    let kind = kinds[Int(setup >> 4 & 0x03)]
    let part = FirmwarePart(
        kind: kind, image: image, initPacket: initPacket,
        softdeviceSize: kind == .softdeviceBootloader ? 1000 : nil, bootloaderSize: kind == .softdeviceBootloader ? 500 : nil)
    var configuration = LegacyDFUStateMachine.Configuration(
        packetReceiptNotifications: UInt16(setup & 0x03), version: versions[Int(setup >> 2 & 0x03)])
    var machine = LegacyDFUStateMachine(part: part, configuration: configuration)
    var action = machine.start()
    var lastOpCode: UInt8 = 0
    // Bytes written to the packet characteristic since Receive Firmware Image.
    var firmwareBytes: UInt32 = 0
    var receivingFirmware = false
    // Bounded: each step either reads input or is a runner reply that the next step answers.
    for _ in 0..<10_000 {
        switch action {
        case .fail, .awaitReset:
            return 0
        case .resetAndRestart:
            guard !configuration.restarted else { return 0 }
            configuration.restarted = true
            machine = LegacyDFUStateMachine(part: part, configuration: configuration)
            action = machine.start()
            continue
        case .wait:
            action = machine.delayElapsed()
            continue
        case .send(let request):
            _ = request.description
            lastOpCode = request.opCode.rawValue
            if request == .receiveFirmware {
                receivingFirmware = true
                firmwareBytes = 0
            }
            if !request.expectsResponse {
                action = machine.requestWritten()
                continue
            }
        case .writePackets(let packets, let awaitReceipt):
            // The machine's own promise: Legacy packets never exceed 20 bytes.
            if packets.contains(where: { $0.count > 20 }) { fatalError("a Legacy DFU packet over 20 bytes") }
            if receivingFirmware { firmwareBytes &+= UInt32(packets.reduce(0) { $0 + $1.count }) }
            if !awaitReceipt {
                action = machine.packetsWritten()
                continue
            }
        }
        guard let move = input.byte() else { return 0 }
        switch move % 13 {
        case 0...3:
            action = machine.received(input.run(maximum: 20))
        case 4...6:
            action = machine.received([0x10, lastOpCode, input.byte() ?? 0x01])
        case 7...8:
            action = machine.received([0x11] + (0..<4).map { UInt8(truncatingIfNeeded: firmwareBytes >> (8 * $0)) })
        case 9:
            action = machine.received([0x11] + input.run(maximum: 4))
        case 10:
            action = machine.timedOut(after: .seconds(1))
        case 11:
            action = machine.disconnected()
        default:
            action = machine.received([0x10, lastOpCode, 0x01])
        }
    }
    return 0
}
