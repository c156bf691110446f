// libFuzzer target: the MCUboot image reader and the nRF Connect SDK package reader. The first
// byte picks the input: 0 a flat image, 1 Intel HEX text, 2 a manifest.json (its length in the
// next two bytes, big-endian) and the rest as the member "app_update.bin". Every image is checked
// without a key and with an ECDSA P-256, an Ed25519 and an RSA-2048 test key, so the hash, key
// hash and every signature path run. The keys are copies of Tests/Fixtures/mcuboot/keys as
// committed with this target (the seeds' signatures verify with them); any key of each kind works.
import DFUCore
import DFUFormats
import DFUCrypto

private func key(_ pem: String) -> VerifyingKey? { try? VerifyingKey(pem: Array(pem.utf8)) }

private let keys: [VerifyingKey?] = [
    nil,
    key(
        """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEBYsV6fYKEuTdv33wa6T7QZizRZRF
        Kh/rehq8+2npIMZ50xbuy1yCM4ng+McvmK9sH8pd8b58aQVH1vEYmy3HFQ==
        -----END PUBLIC KEY-----

        """),
    key(
        """
        -----BEGIN PUBLIC KEY-----
        MCowBQYDK2VwAyEADVQz44wJa++hXKaj0Tv4BQqK11VwYKEnAClKtK+k33Y=
        -----END PUBLIC KEY-----

        """),
    key(
        """
        -----BEGIN PUBLIC KEY-----
        MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAztTJUg2UwbnlPw6c5uk3
        N5+rkMaNKiejciEqpt2u1CTfgaCN85VTLU6PzCnT6Z/l4526JxJZva/a/86FtKY8
        MbxDYCCleQv/bB+ya7hCpMgUYKGo+HpkSaoMsU1AxdBqDDjxc6823i9n2erND2OQ
        RydSKHkbZkOS9w5dL5sIAg9cyPbbDPbX1UcO0AKB8RGlV/Hozl9743tMzPAO1zPm
        9hZ5lAM1WBd5ZdoebS3dd6EjerFlKV7J/XNQe/wLegXoo/PogMswYcxFz9i2Epfw
        dNNP0anyoIv5mRIPaNEhwytTDDRlFecfUFD6sQE9JGmIOvii2IP9juDhz89bvHSr
        4QIDAQAB
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
