// libFuzzer target: the Secure DFU init packet decoder (protobuf).
import DFUCore
import DFUFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSecureInitPacket(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let packet = try? SecureInitPacket(bytes: bytes) {
        // Touch what callers read from a decoded packet.
        _ = packet.signature?.bigEndianRS
        _ = packet.initCommand.map { String(describing: $0) }
    }
    return 0
}
