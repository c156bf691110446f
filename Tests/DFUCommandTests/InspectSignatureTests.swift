import DFUCommand
import Foundation
import Testing

/// `--key`: the right key says valid, another key fails the package (exit 65), no key says
/// "not checked". The packages are signed with Tests/Fixtures/keys/test-private.pem by nrfutil.
@Suite struct InspectSignatureTests {
    static let package = TestData.fixtures.appendingPathComponent("packages/secure-app-4096.zip").path
    static let unsigned = TestData.fixtures.appendingPathComponent("packages/secure-app-4096-unsigned.zip").path
    static let testKey = TestData.fixtures.appendingPathComponent("keys/test-public.pem").path
    static let otherKey = TestData.fixtures.appendingPathComponent("keys/other-public.pem").path

    @Test func rightKeySaysTheSignatureIsValid() async throws {
        let run = await RecordedRun.dfu("inspect", "--json", Self.package, "--key", Self.testKey)
        #expect(run.code == .success)
        let part = try Self.firstInit(run.output)
        #expect(part["signature_ok"] as? Bool == true)
        #expect(part["signature_type"] as? String == "ECDSA_P256_SHA256")
        let text = await RecordedRun.dfu("inspect", Self.package, "--key", Self.testKey)
        #expect(text.output.contains("  signature          valid\n"))
    }

    @Test func otherKeyFailsThePackage() async {
        let run = await RecordedRun.dfu("inspect", Self.package, "--key", Self.otherKey)
        #expect(run.code == .badPackage)
        #expect(run.output.isEmpty)
        #expect(run.errorLines == ["dfu: \(Self.package): app_4096.dat: init packet signature does not verify with the given key"])
    }

    @Test func noKeySaysNotChecked() async throws {
        let run = await RecordedRun.dfu("inspect", "--json", Self.package)
        #expect(run.code == .success)
        #expect(try Self.firstInit(run.output)["signature_ok"] is NSNull)
        let text = await RecordedRun.dfu("inspect", Self.package)
        #expect(text.output.contains("  signature          not checked (no key)\n"))
    }

    @Test func unsignedPackageWithAKeyIsRefused() async {
        let run = await RecordedRun.dfu("inspect", Self.unsigned, "--key", Self.testKey)
        #expect(run.code == .badPackage)
        #expect(run.errorLines.count == 1)
        #expect(run.error.contains("not signed"))
    }

    @Test func keyThatIsNotAPEMIsAUsageError() async {
        let readme = TestData.root.appendingPathComponent("README.md").path
        let run = await RecordedRun.dfu("inspect", Self.package, "--key", readme)
        #expect(run.code == .usage)
        #expect(run.errorLines.count == 1)
        #expect(run.error.contains("option --key: \(readme): not a PEM public or private key"))
    }

    static func firstInit(_ output: String) throws -> [String: Any] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let part = try #require((object["parts"] as? [[String: Any]])?.first)
        return try #require(part["init"] as? [String: Any])
    }
}
