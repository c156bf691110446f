import Foundation
import TestSupport
import Testing
import ZipArchive

/// `Tests/Fixtures/nrfutil/`: what nrfutil 6.1.7 made (`Tests/Fixtures/make-nrfutil-fixtures.sh`).
enum NrfutilFixtures {
    static let folder = TestData.fixtures.appendingPathComponent("nrfutil")
    static let inputs = folder.appendingPathComponent("inputs")
    static let testPrivateKey = TestData.fixtures.appendingPathComponent("keys/test-private.pem").path
    static let testPublicKey = TestData.fixtures.appendingPathComponent("keys/test-public.pem").path

    /// One `nrfutil pkg generate` run: its name, whether nrfutil made a package, and its arguments.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let accepted: Bool
        let arguments: [String]

        var testDescription: String { name }
        var isSigned: Bool { arguments.contains("--key-file") }

        /// The arguments with every input file made absolute (the names inside the zip are base names).
        var absoluteArguments: [String] {
            arguments.map { argument in
                if argument == "test-private.pem" { return NrfutilFixtures.testPrivateKey }
                let input = NrfutilFixtures.inputs.appendingPathComponent(argument).path
                return argument.contains(".") && FileManager.default.fileExists(atPath: input) ? input : argument
            }
        }

        /// nrfutil's package.
        var expectedPackage: URL { NrfutilFixtures.folder.appendingPathComponent("packages/\(name).zip") }
    }

    static let cases: [Case] = {
        guard let text = try? String(contentsOf: folder.appendingPathComponent("cases.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Case(name: fields[0], accepted: fields[1] == "ok", arguments: Array(fields.dropFirst(2)))
        }
    }()

    static var unsigned: [Case] { cases.filter { $0.accepted && !$0.isSigned } }
    static var signed: [Case] { cases.filter { $0.accepted && $0.isSigned } }
    static var refused: [Case] { cases.filter { !$0.accepted } }

    /// The entries of a zip file, in archive order.
    static func entries(_ url: URL) throws -> [(name: String, bytes: [UInt8])] {
        let archive = try ZipArchive(bytes: [UInt8](try Data(contentsOf: url)))
        return try archive.entryNames.map { ($0, try archive.read($0)) }
    }

    /// The compression method of every local file header (0 = stored), walked from the start.
    static func compressionMethods(_ url: URL) throws -> [UInt16] {
        let bytes = [UInt8](try Data(contentsOf: url))
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        var methods: [UInt16] = []
        var offset = 0
        while offset + 30 <= bytes.count, u32(offset) == 0x0403_4B50 {
            methods.append(UInt16(u16(offset + 8)))
            offset += 30 + u16(offset + 26) + u16(offset + 28) + u32(offset + 18)
        }
        return methods
    }

    /// A fresh empty folder for outputs.
    static func temporaryFolder() throws -> URL {
        try TestScratch.folder("dfu-pkg")
    }
}
