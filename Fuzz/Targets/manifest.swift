// libFuzzer target: the manifest.json parser.
import DFUCore
import DFUFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = try? Manifest(json: bytes)
    return 0
}
