// libFuzzer target: CBOR decoding and encoding through libcbor (the CBOR wrapper).
// Crashes when a decoded value does not survive encode → decode → encode with the same bytes.
import CBOR

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCBOR(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    guard let value = try? CBOR(decoding: bytes) else { return 0 }
    _ = value.description
    // Re-encoding may grow (half floats become doubles): allow more room than the decoder did.
    let roomy = CBORLimits(maxBytes: 1 << 20, maxDepth: CBORLimits.standard.maxDepth, maxItems: CBORLimits.standard.maxItems)
    do {
        let once = try value.encoded(limits: roomy)
        let twice = try CBOR(decoding: once, limits: roomy).encoded(limits: roomy)
        if once != twice { fatalError("CBOR re-encoding is not stable: \(value)") }
    } catch {
        fatalError("a decoded CBOR value failed to encode or decode again: \(error) (\(value))")
    }
    return 0
}
