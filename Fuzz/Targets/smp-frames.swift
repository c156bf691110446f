// libFuzzer target: the SMP codec — frame reassembly (SMPFrameAssembler), frames, and every
// response decoder. The first byte picks the notification size (1…64) the input is cut into.
import DFUCore
import DFUFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSMPFrames(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let piece = Int(input.byte() ?? 0) % 64 + 1
    let rest = input.rest()
    _ = try? SMPFrame(bytes: rest)
    var assembler = SMPFrameAssembler()
    var start = 0
    while start < rest.count {
        let end = min(start + piece, rest.count)
        if let frames = try? assembler.append(Array(rest[start..<end])) {
            for frame in frames {
                _ = frame.description
                for command in SMPCommand.allCases {
                    if let response = try? SMPResponse(frame: frame, answering: command) { _ = response.description }
                }
                if let body = try? frame.decodedBody(), let chunk = try? SMPUploadChunk(body: body) {
                    _ = chunk.description
                }
            }
        }
        start = end
    }
    return 0
}
