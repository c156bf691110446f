import DFUCore
import Foundation
import TestSupport
import Testing
import ZipArchive
import DFUFormats

/// Inputs that once made a fuzz target crash, hang or leak (Tests/Fixtures/fuzz-regressions/<target>/).
///
/// Each file is fed to the parser the way its fuzz target (Fuzz/Targets/<target>.swift) does; the
/// parser must return a value or throw its typed error, never trap. Leaks are caught by `make fuzz`,
/// which replays these files as seeds under AddressSanitizer.
@Suite struct FuzzRegressionTests {
    static func inputs(_ target: String) -> [String] { FuzzRegressions.inputs(target) }

    static func bytes(_ target: String, _ name: String) throws -> [UInt8] { try FuzzRegressions.bytes(target, name) }

    /// The dfu_version picked by the first byte of a legacy-init-packet input.
    static let legacyVersions: [Double?] = [nil, 0.5, 0.6, 0.7, 0.8]

    /// Splits a package-entries input (pieces after "\n#entry ": name, newline, bytes) into entries.
    static func framedEntries(_ bytes: [UInt8]) -> [String: [UInt8]] {
        let marker = Array("\n#entry ".utf8)
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

    /// Runs the package reader over entries as the package targets do; only typed errors escape.
    static func inspectEverything(_ entries: [String: [UInt8]]) throws(PackageError) {
        let report = try DFUPackage.inspect(entries: entries, key: nil)
        _ = try report.checkedPackage()
    }

    @Test func theFramingOfPackageEntriesInputsSplitsNamesAndBytes() {
        // "\n#entry a.bin\n" + 01 02 + "\n#entry m\n" + (nothing): two entries.
        let input = Array("ignored\n#entry a.bin\n".utf8) + [0x01, 0x02] + Array("\n#entry m\n".utf8)
        #expect(Self.framedEntries(input) == ["a.bin": [0x01, 0x02], "m": []])
    }

    @Test(arguments: inputs("package"))
    func everyPackageRegressionReadsOrThrows(name: String) throws {
        let bytes = try Self.bytes("package", name)
        do {
            try Self.inspectEverything(try ZipArchive.readAll(bytes: bytes))
        } catch let error as ZipError {
            #expect(!error.message.isEmpty)
        } catch let error as PackageError {
            #expect(!String(describing: error).isEmpty)
        }
    }

    @Test(arguments: inputs("package-entries"))
    func everyPackageEntriesRegressionReadsOrThrows(name: String) throws {
        let entries = Self.framedEntries(try Self.bytes("package-entries", name))
        do {
            try Self.inspectEverything(entries)
        } catch {
            #expect(!String(describing: error).isEmpty)
        }
    }

    @Test(arguments: inputs("manifest"))
    func everyManifestRegressionParsesOrThrows(name: String) throws {
        let bytes = try Self.bytes("manifest", name)
        do {
            _ = try Manifest(json: bytes)
        } catch {
            #expect(!String(describing: error).isEmpty)
        }
    }

    @Test(arguments: inputs("secure-init-packet"))
    func everySecureInitPacketRegressionDecodesOrThrows(name: String) throws {
        let bytes = try Self.bytes("secure-init-packet", name)
        do {
            _ = try SecureInitPacket(bytes: bytes)
        } catch {
            #expect(!String(describing: error).isEmpty)
        }
    }

    @Test(arguments: inputs("legacy-init-packet"))
    func everyLegacyInitPacketRegressionDecodesOrThrows(name: String) throws {
        let bytes = try Self.bytes("legacy-init-packet", name)
        guard let first = bytes.first else { return }
        do {
            _ = try LegacyInitPacket(bytes: Array(bytes.dropFirst()), dfuVersion: Self.legacyVersions[Int(first) % 5])
        } catch {
            #expect(!String(describing: error).isEmpty)
        }
    }

    @Test(arguments: inputs("intel-hex"))
    func everyIntelHexRegressionParsesOrThrows(name: String) throws {
        let bytes = try Self.bytes("intel-hex", name)
        do {
            let hex = try IntelHex(text: bytes, name: name)
            for kind in [PartKind.application, .softdevice, .bootloader, .softdeviceBootloader] {
                _ = try? hex.image(for: kind)
            }
        } catch {
            #expect(!String(describing: error).isEmpty)
        }
    }
}
