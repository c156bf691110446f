import DFUCore
import DFUCrypto
import Foundation
import Testing

/// `Tests/Fixtures/mcuboot`: images made by imgtool and `expected.tsv`, the verdict `imgtool verify`
/// gave each (see `make-mcuboot-fixtures.sh`).
enum MCUbootFixture {
    static let root = SharedData.generatedFixtures.appendingPathComponent("mcuboot")

    /// One row of `expected.tsv`.
    struct Row: Sendable, CustomTestStringConvertible {
        /// `images/NAME`, or `dfu_application.zip/MEMBER`.
        let file: String
        /// `ecdsa-p256`, `ed25519`, `rsa-2048`, `rsa-3072`, or nil for a check without key.
        let key: String?
        /// imgtool's verdict: OK, INVALID_HASH, INVALID_SIGNATURE, INVALID_MAGIC, INVALID_TLV_INFO_MAGIC, KEY_MISMATCH, CRASH.
        let imgtool: String
        /// The version and digest imgtool printed for OK.
        let version: String?
        let digest: String?
        var testDescription: String { "\(file) \(key ?? "no key")" }
    }

    static let rows: [Row] = {
        guard let text = try? String(contentsOf: root.appendingPathComponent("expected.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 5 else { return nil }
            func value(_ s: String) -> String? { s == "-" ? nil : s }
            return Row(file: f[0], key: value(f[1]), imgtool: f[2], version: value(f[3]), digest: value(f[4]))
        }
    }()

    static var isPresent: Bool { !rows.isEmpty }

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: root.appendingPathComponent(relativePath)))
    }

    static func key(_ name: String) throws -> VerifyingKey {
        try VerifyingKey(pem: bytes("keys/\(name).pub.pem"))
    }
}
