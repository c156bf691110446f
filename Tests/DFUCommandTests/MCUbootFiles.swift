import Foundation
import Testing
import TestSupport

/// `Tests/Fixtures/mcuboot`: MCUboot images made by imgtool and `expected.tsv`, the verdict
/// `imgtool verify` gave each (see `make-mcuboot-fixtures.sh`).
enum MCUbootFiles {
    static let root = TestData.fixtures.appendingPathComponent("mcuboot")
    static var present: Bool { FileManager.default.fileExists(atPath: root.appendingPathComponent("expected.tsv").path) }
    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }
    static func key(_ name: String) -> String { path("keys/\(name).pub.pem") }

    /// The rows of expected.tsv for files `dfu inspect` reads directly (not zip members).
    static let rows: [(file: String, key: String?, imgtool: String)] = {
        guard let text = try? String(contentsOf: root.appendingPathComponent("expected.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count == 5, f[0].hasPrefix("images/") else { return nil }
            return (f[0], f[1] == "-" ? nil : f[1], f[2])
        }
    }()

    struct Row: CustomTestStringConvertible, Sendable {
        let file: String
        let key: String?
        let imgtool: String
        var testDescription: String { "\(file) \(key ?? "no key")" }
    }

    static let cases = rows.map { Row(file: $0.file, key: $0.key, imgtool: $0.imgtool) }

    /// imgtool in the venv `Tests/Fixtures/mcuboot/imgtool-venv.sh` makes.
    static let imgtool = TestData.root.appendingPathComponent(".build/mcuboot-venv/bin/imgtool").path
    static var imgtoolInstalled: Bool { ToolRun.isInstalled(imgtool) && present }
}
