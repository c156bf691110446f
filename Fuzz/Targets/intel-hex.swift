// libFuzzer target: the Intel HEX parser and its conversion to a flat image for every part kind.
import DFUCore
import DFUFormats

private let kinds: [PartKind] = [.application, .softdevice, .bootloader, .softdeviceBootloader]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIntelHex(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let hex = try? IntelHex(text: bytes, name: "fuzz.hex") else { return 0 }
    for kind in kinds { _ = try? hex.image(for: kind) }
    return 0
}
