// libFuzzer target: the Secure DFU response and request codecs and the Secure DFU state machine they feed.
//
// The harness plays the runner and a small honest device: it keeps the bytes of the current
// command object and of the data received so far, and can answer any request truthfully
// (Select and Calculate Checksum with the real offset and CRC-32). The input picks, whenever the
// machine waits for the device, what the device does:
//   0–7, 14–15  answer truthfully;
//   8   answer truthfully with one byte changed (input: position, value) — a lie;
//   9   lose the last packet written, then answer truthfully;
//   10–11  send a notification of up to 20 input bytes — a lie unless it happens to be true;
//   12  time out;   13  disconnect.
// Byte 0 picks the configuration (PRN interval, packet size, resume, part kind, a delay before the
// first data object) and byte 1 the device's maximum data object size: one of the SDK's, or (bit 7) the
// data and command object sizes over the whole u32 range from the next input bytes.
//
// Invariant checked (a crash when broken): unless the device lied, the machine executes an
// object only when what the device holds is exactly what it should (no unverified Execute).
import DFUCore
import DFUFormats
import DFUCrypto

private let image: [UInt8] = (0..<1500).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
private let initPacket: [UInt8] = (0..<40).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
private let kinds: [PartKind] = [.application, .softdevice, .bootloader, .softdeviceBootloader]
private let dataObjectSizes: [UInt32] = [256, 512, 1024, 4096]

/// What the simulated device holds.
private struct HonestDevice {
    var command: [UInt8] = []
    var data: [UInt8] = []
    var executedData = 0
    var current: SecureDFUObjectType = .command
    var maxDataSize: UInt32 = 4096
    var maxCommandSize: UInt32 = 256

    var buffer: [UInt8] { current == .command ? command : data }

    mutating func append(_ packet: [UInt8]) {
        if current == .command { command += packet } else { data += packet }
    }

    mutating func loseLastPacket(_ size: Int) {
        if current == .command { command.removeLast(min(size, command.count)) } else { data.removeLast(min(size, data.count - executedData)) }
    }

    /// `60 03 01 <offset> <crc>` for what the current object holds.
    var checksum: [UInt8] {
        let bytes = buffer
        return [0x60, 0x03, 0x01] + UInt32(bytes.count).littleEndianBytes + CRC32.checksum(bytes).littleEndianBytes
    }

    /// The truthful answer to `request`, applying its effect.
    mutating func answer(_ request: SecureDFURequest) -> [UInt8] {
        switch request {
        case .select(let type):
            current = type
            if type == .data { data.removeLast(data.count - executedData) }
            let bytes = buffer
            let maximum: UInt32 = type == .command ? maxCommandSize : maxDataSize
            return [0x60, 0x06, 0x01] + maximum.littleEndianBytes + UInt32(bytes.count).littleEndianBytes
                + CRC32.checksum(bytes).littleEndianBytes
        case .create(let type, _):
            current = type
            if type == .command { command = [] } else { data.removeLast(data.count - executedData) }
            return [0x60, 0x01, 0x01]
        case .setPRN:
            return [0x60, 0x02, 0x01]
        case .calculateChecksum:
            return checksum
        case .execute:
            if current == .data { executedData = data.count }
            return [0x60, 0x04, 0x01]
        case .abort:
            return [0x60, 0x0C, 0x01]
        }
    }
}

extension UInt32 {
    fileprivate var littleEndianBytes: [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: self >> (8 * $0)) } }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSecureDFUResponses(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    // Every input is also decoded whole, as one notification.
    if let response = try? SecureDFUResponse(bytes: input.all) {
        _ = response.description
        // Re-encoding is stable: what it writes decodes to the same answer.
        if (try? SecureDFUResponse(bytes: response.bytes)) != response { fatalError("a response that re-encodes differently") }
    }
    // Request decoding is strict: whatever decodes re-encodes to exactly the input.
    if let request = try? SecureDFURequest(bytes: input.all), request.bytes != input.all {
        fatalError("a request that re-encodes differently")
    }
    guard let setup = input.byte() else { return 0 }
    let kind = kinds[Int(setup >> 5 & 0x03)]
    let configuration = SecureDFUStateMachine.Configuration(
        packetReceiptNotifications: UInt16(setup & 0x03), packetSize: [20, 64, 244][Int(setup >> 2 & 0x03) % 3],
        resume: setup & 0x10 != 0, firstObjectDelay: setup & 0x80 != 0 ? .milliseconds(400) : .zero)
    var machine = SecureDFUStateMachine(kind: kind, initPacket: initPacket, image: image, configuration: configuration)
    var device = HonestDevice()
    let sizes = input.byte() ?? 0
    if sizes & 0x80 == 0 {
        device.maxDataSize = dataObjectSizes[Int(sizes) % dataObjectSizes.count]
    } else {
        // Any u32 the device may claim (the machine must refuse what is outside 1 B…1 MiB, never trap).
        device.maxDataSize = input.uint32()
        device.maxCommandSize = input.uint32()
    }
    var lied = false
    var lastRequest = SecureDFURequest.setPRN(0)
    var lastPacketSize = 0
    var action = machine.start()
    // Bounded: each step either reads input or is a runner reply that the next step answers.
    for _ in 0..<20_000 {
        _ = action.description
        var awaitingReceipt = false
        switch action {
        case .fail, .awaitReset:
            return 0
        case .wait:
            action = machine.delayElapsed()
            continue
        case .send(let request):
            if request == .execute, !lied {
                let expected = device.current == .command ? initPacket : Array(image.prefix(device.data.count))
                if device.buffer != expected {
                    fatalError("Execute of an object the device does not hold intact (\(device.current))")
                }
            }
            lastRequest = request
        case .writePackets(let packets, let awaitReceipt):
            for packet in packets {
                if packet.count > configuration.packetSize { fatalError("a packet over the configured size") }
                device.append(packet)
            }
            lastPacketSize = packets.last?.count ?? 0
            if !awaitReceipt {
                action = machine.packetsWritten()
                continue
            }
            awaitingReceipt = true
        case .awaitNotification:
            break
        }
        guard let move = input.byte() else { return 0 }
        var truth: [UInt8] { awaitingReceipt ? device.checksum : device.answer(lastRequest) }
        switch move % 16 {
        case 8:
            var frame = truth
            let position = Int(input.byte() ?? 0) % frame.count
            frame[position] ^= input.byte() ?? 0xFF
            lied = true
            action = machine.received(frame)
        case 9:
            device.loseLastPacket(lastPacketSize)
            action = machine.received(truth)
        case 10, 11:
            lied = true
            action = machine.received(input.run(maximum: 20))
        case 12:
            action = machine.timedOut(after: .seconds(1))
        case 13:
            action = machine.disconnected()
        default:
            action = machine.received(truth)
        }
    }
    return 0
}
