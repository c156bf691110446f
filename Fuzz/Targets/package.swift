// libFuzzer target: the package reader, zip bytes in: ZipArchive.readAll, then
// DFUPackage.inspect(entries:key:) with the test key (every hash and signature check runs),
// then checkedPackage().
import DFUCore
import DFUFormats
import DFUCrypto
import ZipArchive

/// The public half of Tests/Fixtures/keys/test-private.pem, so that signatures are checked.
private let testKey = try? ECDSAP256.PublicKey(
    pem: Array(
        """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEwK7q2UG2ajAqLlyOOvjJFuHfPZr0lWeV1od0VMtp
        oy9Q6zVxqc2V0sPdMVLIYeiF/00Dfsylpyo8fXr/JKmDDA==
        -----END PUBLIC KEY-----

        """.utf8))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPackage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let entries = try? ZipArchive.readAll(bytes: bytes) else { return 0 }
    if let report = try? DFUPackage.inspect(entries: entries, key: testKey) {
        _ = try? report.checkedPackage()
    }
    _ = try? DFUPackage.inspect(entries: entries, key: nil)
    return 0
}
