// libFuzzer target: DFUPackage.inspect(entries:key:) without the zip layer, so that mutations
// reach the manifest, init packets and images directly.
//
// Input framing (Fuzz/seeds.sh writes seeds in it): the input is cut at every "\n#entry " marker;
// in each piece after the first, the text up to the first "\n" is the entry name and the rest
// its bytes. The first piece is ignored.
import DFUCore
import DFUFormats
import DFUCrypto

/// The public half of Tests/Fixtures/keys/test-private.pem, so that signatures are checked.
private let testKey = try? ECDSAP256.PublicKey(
    pem: Array(
        """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEwK7q2UG2ajAqLlyOOvjJFuHfPZr0lWeV1od0VMtp
        oy9Q6zVxqc2V0sPdMVLIYeiF/00Dfsylpyo8fXr/JKmDDA==
        -----END PUBLIC KEY-----

        """.utf8))

private let marker = Array("\n#entry ".utf8)

/// Splits the framed input into named entries.
private func entries(from bytes: [UInt8]) -> [String: [UInt8]] {
    var pieces: [ArraySlice<UInt8>] = []
    var start = 0
    var index = 0
    while index + marker.count <= bytes.count {
        if bytes[index..<index + marker.count].elementsEqual(marker) {
            pieces.append(bytes[start..<index])
            index += marker.count
            start = index
        } else {
            index += 1
        }
    }
    pieces.append(bytes[start...])
    var result: [String: [UInt8]] = [:]
    for piece in pieces.dropFirst() {
        let newline = piece.firstIndex(of: 0x0A) ?? piece.endIndex
        let name = String(decoding: piece[piece.startIndex..<newline], as: UTF8.self)
        result[name] = newline < piece.endIndex ? Array(piece[(newline + 1)...]) : []
    }
    return result
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPackageEntries(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let named = entries(from: bytes)
    if let report = try? DFUPackage.inspect(entries: named, key: testKey) {
        _ = try? report.checkedPackage()
    }
    _ = try? DFUPackage.inspect(entries: named, key: nil)
    return 0
}
