// libFuzzer target: the Legacy DFU init packet decoder. The first byte picks the manifest's
// dfu_version (none, 0.5, 0.6, 0.7, 0.8); the rest is the packet.
import DFUCore
import DFUFormats

private let versions: [Double?] = [nil, 0.5, 0.6, 0.7, 0.8]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLegacyInitPacket(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let first = bytes.first else { return 0 }
    _ = try? LegacyInitPacket(bytes: Array(bytes.dropFirst()), dfuVersion: versions[Int(first) % versions.count])
    return 0
}
