// libFuzzer target: the MCUboot image reader and the nRF Connect SDK package reader. The first
// byte picks the input: 0 a flat image, 1 Intel HEX text, 2 a manifest.json (its length in the
// next two bytes, big-endian) and the rest as the member "app_update.bin". Every image is checked
// without a key and with an ECDSA P-256, an Ed25519 and an RSA-2048 test key (made by imgtool
// keygen for Tests/Fixtures/mcuboot), so the hash, key hash and every signature path run.
import DFUCore
import DFUCrypto

private func key(_ pem: String) -> VerifyingKey? { try? VerifyingKey(pem: Array(pem.utf8)) }

private let keys: [VerifyingKey?] = [
    nil,
    key(
        """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEWhzalgG7ttSFuuf+tdUIKpgoZGve
        zV1GhC1bF7XqRbEDLhEwXQrv0C8T+vGxb//3eh6JSvoqg93V596BVQKRpA==
        -----END PUBLIC KEY-----

        """),
    key(
        """
        -----BEGIN PUBLIC KEY-----
        MCowBQYDK2VwAyEAuerxT7lW4MCxQQNU86vrf9krjVOQFWKL/jDv9g/RvUU=
        -----END PUBLIC KEY-----

        """),
    key(
        """
        -----BEGIN PUBLIC KEY-----
        MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA76BcWKS4gFz0/nh9zFPM
        AIIMbnZt7DRDkNLz7/+o5OzjbdOVFijoI7aqThgB8EQulKJRbGcP79T2mdKw0WuS
        fhUaCEH9Q82JmJ1QTonywjOqoRZ9NwJ4ISOEi3tAwZdW6C+NcQLr89wV1MArhUdB
        c32GxZOzBEPxFLLNfrsFc72JN+ZjSkJujhZ+bXhcxz/JHvDV3DxH10iZq85HwZB/
        SdyT66XVQQWaWoICaJw17GMsCFjs6oY0EFAwzTkSHvvTu9jLjeakKIK1grgufsFp
        jtbwt4hQs1vIXfozZSVpO4juGtalvamWfdaPKVcv6Do0bAj4KEzs4k84gBRfTnAr
        yQIDAQAB
        -----END PUBLIC KEY-----

        """),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMCUboot(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    guard let mode = input.byte() else { return 0 }
    for key in keys {
        let report: MCUbootPackageReport?
        switch mode % 3 {
        case 0:
            report = try? MCUbootPackageReport.inspect(file: Array(input.all.dropFirst()), name: "fuzz.bin", key: key)
        case 1:
            report = try? MCUbootPackageReport.inspect(file: Array(input.all.dropFirst()), name: "fuzz.hex", key: key)
        default:
            var copy = input
            let length = Int(copy.byte() ?? 0) << 8 | Int(copy.byte() ?? 0)
            let rest = copy.rest()
            let manifest = Array(rest.prefix(length))
            let entries = ["manifest.json": manifest, "app_update.bin": Array(rest.dropFirst(length))]
            report = try? MCUbootPackageReport.inspect(entries: entries, key: key)
            _ = NCSManifest.isNCSManifest(manifest)
        }
        guard let report else { continue }
        try? report.check()
        for image in report.images {
            _ = image.image.trailer
            _ = image.image.securityCounter
            _ = image.image.flags.description
        }
    }
    return 0
}
