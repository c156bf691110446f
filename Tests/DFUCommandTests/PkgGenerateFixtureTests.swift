import DFUCommand
import DFUCore
import DFUCrypto
import Foundation
import Testing
import DFUFormats

/// `dfu pkg generate` against nrfutil 6.1.7 itself: every run of `make-nrfutil-fixtures.sh` is
/// repeated with the same arguments, and the zips are compared entry by entry.
@Suite struct PkgGenerateFixtureTests {
    /// Runs `dfu pkg generate` for `fixture` into a fresh folder; returns the run and the zip's path.
    static func generate(_ fixture: NrfutilFixtures.Case) async throws -> (RecordedRun, URL) {
        let out = try NrfutilFixtures.temporaryFolder().appendingPathComponent("\(fixture.name).zip")
        let run = await RecordedRun.dfu(arguments: ["pkg", "generate"] + fixture.absoluteArguments + [out.path])
        return (run, out)
    }

    @Test func theFixturesArePresent() {
        #expect(NrfutilFixtures.unsigned.count >= 25)
        #expect(NrfutilFixtures.signed.count >= 4)
        #expect(NrfutilFixtures.refused.count >= 15)
    }

    @Test(arguments: NrfutilFixtures.unsigned)
    func unsignedPackageHasNrfutilsEntriesInNrfutilsOrderByteForByte(_ fixture: NrfutilFixtures.Case) async throws {
        let (run, out) = try await Self.generate(fixture)
        #expect(run.code == .success, "\(run.error)")
        let ours = try NrfutilFixtures.entries(out)
        let theirs = try NrfutilFixtures.entries(fixture.expectedPackage)
        #expect(ours.map(\.name) == theirs.map(\.name))
        for (mine, expected) in zip(ours, theirs) {
            #expect(mine.bytes == expected.bytes, "\(mine.name) differs from nrfutil's")
        }
        #expect(try NrfutilFixtures.compressionMethods(out) == NrfutilFixtures.compressionMethods(fixture.expectedPackage))
        #expect(try NrfutilFixtures.compressionMethods(out).allSatisfy { $0 == 0 }, "stored, as nrfutil")
        #expect(run.output == "Zip created at \(out.path)\n")
    }

    @Test(arguments: NrfutilFixtures.signed)
    func signedPackageDiffersFromNrfutilsOnlyInSignaturesThatVerify(_ fixture: NrfutilFixtures.Case) async throws {
        let (run, out) = try await Self.generate(fixture)
        #expect(run.code == .success, "\(run.error)")
        let key = try ECDSAP256.PublicKey(pem: [UInt8](try Data(contentsOf: URL(fileURLWithPath: NrfutilFixtures.testPublicKey))))
        let ours = try NrfutilFixtures.entries(out)
        let theirs = try NrfutilFixtures.entries(fixture.expectedPackage)
        #expect(ours.map(\.name) == theirs.map(\.name))
        let images = Dictionary(uniqueKeysWithValues: ours.map { ($0.name, $0.bytes) })
        for (mine, expected) in zip(ours, theirs) where !mine.name.hasSuffix(".dat") {
            #expect(mine.bytes == expected.bytes, "\(mine.name) differs from nrfutil's")
        }
        for (mine, expected) in zip(ours, theirs) where mine.name.hasSuffix(".dat") {
            let packet = try SecureInitPacket(bytes: mine.bytes)
            let reference = try SecureInitPacket(bytes: expected.bytes)
            let signature = try #require(packet.signature)
            #expect(signature.type == reference.signature?.type)
            #expect(ECDSAP256.verify(signature: signature.bigEndianRS, of: packet.initCommandBytes, with: key),
                    "\(mine.name): the init packet signature verifies with test-public.pem")
            // Everything but the ECDSA bytes is nrfutil's; those verify over the image.
            var command = try #require(packet.initCommand)
            var expectedCommand = try #require(reference.initCommand)
            let image = try #require(images[mine.name.replacingOccurrences(of: ".dat", with: ".bin")])
            let validated = command.softdeviceSize.map { size in
                command.firmwareType == .softdeviceBootloader ? Array(image.prefix(Int(size))) : image
            } ?? image
            for validation in command.bootValidations where validation.type == .ecdsaP256SHA256 {
                let rs = Array(validation.bytes[0..<32].reversed()) + Array(validation.bytes[32..<64].reversed())
                #expect(ECDSAP256.verify(signature: rs, of: validated, with: key), "\(mine.name): boot validation signature")
            }
            command.bootValidations = command.bootValidations.map { .init(type: $0.type, bytes: $0.type == .ecdsaP256SHA256 ? [] : $0.bytes) }
            expectedCommand.bootValidations = expectedCommand.bootValidations.map { .init(type: $0.type, bytes: $0.type == .ecdsaP256SHA256 ? [] : $0.bytes) }
            #expect(command == expectedCommand, "\(mine.name): init command fields")
            #expect(mine.bytes.count == expected.bytes.count)
        }
        let inspect = await RecordedRun.dfu("inspect", out.path, "--key", NrfutilFixtures.testPublicKey)
        #expect(inspect.code == .success, "\(inspect.error)")
    }

    /// Every accepted case but `legacy-app-none`: with every field `none`, adafruit-nrfutil writes an
    /// 8-byte init packet (SoftDevice count, extended id, CRC) that no Legacy bootloader reads, and
    /// `dfu inspect` says so.
    @Test(arguments: NrfutilFixtures.unsigned.filter { $0.name != "legacy-app-none" })
    func everyGeneratedPackagePassesInspect(_ fixture: NrfutilFixtures.Case) async throws {
        let (run, out) = try await Self.generate(fixture)
        #expect(run.code == .success, "\(run.error)")
        let inspect = await RecordedRun.dfu("inspect", out.path)
        #expect(inspect.code == .success, "\(inspect.error)")
    }

    @Test func legacyInitPacketWithEveryFieldLeftOutIsWhatAdafruitWritesAndInspectRefusesIt() async throws {
        let fixture = try #require(NrfutilFixtures.cases.first { $0.name == "legacy-app-none" })
        let (run, out) = try await Self.generate(fixture)
        #expect(run.code == .success, "\(run.error)")
        let dat = try #require(try NrfutilFixtures.entries(out).first { $0.name == "app_4097.dat" })
        // softdevice_req count 0 (u16), ext_packet_id 0 (u32), CRC-16 of the 4100-byte image (u16)
        #expect(dat.bytes.count == 8)
        #expect(dat.bytes.prefix(6) == [0x00, 0x00, 0x00, 0x00, 0x00, 0x00])
        let inspect = await RecordedRun.dfu("inspect", out.path)
        #expect(inspect.code == .badPackage)
    }

    @Test(arguments: NrfutilFixtures.refused)
    func whatNrfutilRefusesIsRefusedWithOneLineExit64AndNoFile(_ fixture: NrfutilFixtures.Case) async throws {
        let (run, out) = try await Self.generate(fixture)
        #expect(run.code == .usage, "\(run.error)")
        #expect(run.errorLines.count == 1, "\(run.error)")
        #expect(run.error.hasPrefix("dfu: "))
        #expect(!FileManager.default.fileExists(atPath: out.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.deletingLastPathComponent().path).isEmpty,
                "no temporary file is left behind")
    }
}
