// libFuzzer target: the buttonless codecs and the state machine's notification decoding (`20 <op> <status>`).
//
// Byte 0 picks the variant and whether an advertising name is set; then, while the machine
// waits for the device, each input byte picks the device's move:
//   0–3  a notification of up to 8 input bytes;
//   4–6  a response to the last request, `20 <op> <status byte from the input>`;
//   7    a timeout;   8  a disconnect.
import DFUCore
import DFUFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzButtonlessResponses(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    if let response = try? ButtonlessResponse(bytes: input.all), response.bytes != Array(input.all.prefix(3)) {
        fatalError("a response that re-encodes differently")
    }
    // Request decoding is strict: whatever decodes re-encodes to exactly the input.
    if let request = try? ButtonlessRequest(bytes: input.all), request.bytes != input.all {
        fatalError("a request that re-encodes differently")
    }
    guard let setup = input.byte() else { return 0 }
    let variants = ButtonlessVariant.allCases
    var machine = ButtonlessStateMachine(
        variant: variants[Int(setup & 0x0F) % variants.count], alternativeName: setup & 0x10 != 0 ? "DfuTarg" : nil)
    var action = machine.start()
    var lastOpCode: UInt8 = 0
    for _ in 0..<1_000 {
        switch action {
        case .fail, .jumped:
            _ = machine.step
            return 0
        case .send(let request):
            _ = request.description
            lastOpCode = request.bytes.first ?? 0
        }
        guard let move = input.byte() else { return 0 }
        switch move % 9 {
        case 0...3:
            action = machine.received(input.run(maximum: 8))
        case 4...6:
            action = machine.received([0x20, lastOpCode, input.byte() ?? 0x01])
        case 7:
            action = machine.timedOut(after: .seconds(1))
        default:
            action = machine.disconnected()
        }
    }
    return 0
}
