// libFuzzer target: the zip reader (ZipArchive over libzip), every entry read with the default caps.
import ZipArchive

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZipArchive(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    _ = try? ZipArchive.readAll(bytes: bytes)
    return 0
}
