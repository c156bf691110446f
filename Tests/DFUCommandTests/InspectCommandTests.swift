import DFUCommand
import Foundation
import Testing

/// `dfu inspect --json` against packages whose contents are known from elsewhere: the Nordic
/// samples (values in shared/nordic-samples/samples.json, decoded with nrfutil's own classes) and
/// the packages generated with nrfutil and adafruit-nrfutil (Tests/Fixtures/packages/expected.json,
/// computed with Python's zipfile, zlib and hashlib).
@Suite struct InspectCommandTests {
    /// One package and what its JSON must say.
    struct Case: CustomTestStringConvertible, Sendable {
        let path: String
        let expectedJSON: Data
        var testDescription: String { URL(fileURLWithPath: path).lastPathComponent }
        var expected: [String: Any] {
            (try? JSONSerialization.jsonObject(with: expectedJSON) as? [String: Any]) ?? [:]
        }
    }

    static func cases(from list: URL, base: URL) -> [Case] {
        guard let array = try? TestData.jsonArray(list) else { return [] }
        return array.compactMap { entry in
            guard let file = entry["file"] as? String, let data = try? JSONSerialization.data(withJSONObject: entry)
            else { return nil }
            return Case(path: base.appendingPathComponent(file).standardizedFileURL.path, expectedJSON: data)
        }
    }

    static let generated = cases(
        from: TestData.fixtures.appendingPathComponent("packages/expected.json"),
        base: TestData.fixtures.appendingPathComponent("packages"))
    static let nordic = cases(
        from: TestData.nordicSamples.appendingPathComponent("samples.json"), base: TestData.nordicSamples)

    @Test func theGeneratedFixturesAreAllListed() {
        #expect(Self.generated.count >= 25)
    }

    @Test(arguments: generated)
    func reportsTheGeneratedPackageAsItsGeneratorMadeIt(_ package: Case) async throws {
        try await Self.check(package)
    }

    @Test(.enabled(if: TestData.hasNordicSamples, "needs ../shared/nordic-samples"), arguments: nordic)
    func reportsTheNordicSampleAsSamplesJSONDescribesIt(_ package: Case) async throws {
        try await Self.check(package)
    }

    /// Runs `dfu inspect --json` and compares every field the schema names.
    static func check(_ package: Case) async throws {
        let run = await RecordedRun.dfu("inspect", "--json", package.path)
        #expect(run.code == .success, "\(run.error)")
        #expect(run.error.isEmpty)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let expected = package.expected
        #expect(object["format"] as? String == expected["format"] as? String)
        let parts = try #require(object["parts"] as? [[String: Any]])
        let expectedParts = try #require(expected["parts"] as? [[String: Any]])
        #expect(parts.count == expectedParts.count)
        for (part, want) in zip(parts, expectedParts) {
            #expect(part["type"] as? String == want["type"] as? String)
            #expect(part["bin_file"] as? String == want["bin_file"] as? String)
            #expect(part["bin_size"] as? Int == want["bin_size"] as? Int)
            #expect(part["bin_crc32"] as? String == want["bin_crc32"] as? String)
            #expect(part["bin_sha256"] as? String == want["bin_sha256"] as? String)
            #expect(part["dat_size"] as? Int == want["dat_size"] as? Int)
            let initPacket = try #require(part["init"] as? [String: Any])
            let wantInit = try #require(want["init"] as? [String: Any])
            #expect(initPacket["hash_ok"] as? Bool == true)
            #expect(initPacket["signature_ok"] is NSNull, "no key given: signature_ok is null")
            if object["format"] as? String == "secure" {
                try checkSecure(initPacket, wantInit, part: part)
            } else {
                #expect(initPacket["fw_version"] as? Int == wantInit["application_version"] as? Int)
                #expect(initPacket["hw_version"] as? Int == wantInit["device_type"] as? Int)
                // A 2-byte CRC-only init packet (SDK ≤ 6) has no header: sd_req is empty.
                #expect(initPacket["sd_req"] as? [Int] == wantInit["softdevice_req"] as? [Int] ?? [])
                if let sd = want["manifest_sd_size"] as? Int ?? want["sd_size"] as? Int {
                    #expect(part["sd_size"] as? Int == sd)
                }
                if let bl = want["manifest_bl_size"] as? Int ?? want["bl_size"] as? Int {
                    #expect(part["bl_size"] as? Int == bl)
                }
            }
        }
    }

    static func checkSecure(_ initPacket: [String: Any], _ want: [String: Any], part: [String: Any]) throws {
        #expect(initPacket["fw_version"] as? Int == want["fw_version"] as? Int)
        #expect(initPacket["hw_version"] as? Int == want["hw_version"] as? Int)
        let wantSDReq = (want["sd_req"] as? [Any] ?? []).compactMap { value -> Int? in
            if let number = value as? Int { return number }
            if let text = value as? String { return Int(text.dropFirst(2), radix: 16) }
            return nil
        }
        #expect(initPacket["sd_req"] as? [Int] == wantSDReq)
        #expect(initPacket["type"] as? String == want["type"] as? String)
        #expect(initPacket["hash_type"] as? String == want["hash_type"] as? String)
        let signatureType = initPacket["signature_type"]
        if let wantType = want["signature_type"] as? String {
            #expect(signatureType as? String == wantType)
        } else {
            #expect(signatureType is NSNull)
        }
        if part["type"] as? String == "softdevice_bootloader" {
            #expect(part["sd_size"] as? Int == want["sd_size"] as? Int)
            #expect(part["bl_size"] as? Int == want["bl_size"] as? Int)
        }
    }
}
