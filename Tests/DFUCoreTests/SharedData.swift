import Foundation

/// Locates `<package root>/../shared`, the project's shared test data, if present.
enum SharedData {
    /// The package root, derived from this file's path (`Tests/DFUCoreTests/SharedData.swift`).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `<package root>/../shared/nordic-samples`.
    static let nordicSamples = packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared").appendingPathComponent("nordic-samples")

    /// Whether the Nordic samples (with `samples.json`) are there.
    static var hasNordicSamples: Bool {
        FileManager.default.fileExists(atPath: nordicSamples.appendingPathComponent("samples.json").path)
    }

    /// `<package root>/Tests/Fixtures`: packages made with Nordic's generators, bad inputs, keys.
    static let generatedFixtures = packageRoot.appendingPathComponent("Tests/Fixtures")

    /// Whether the generated fixtures (with their `expected.json` files) are there.
    static var hasGeneratedFixtures: Bool {
        FileManager.default.fileExists(atPath: generatedFixtures.appendingPathComponent("packages/expected.json").path)
            && FileManager.default.fileExists(atPath: generatedFixtures.appendingPathComponent("bad/expected.json").path)
    }

    /// The bytes of a file under `nordic-samples`, by relative path.
    static func sample(_ relativePath: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: nordicSamples.appendingPathComponent(relativePath)))
    }

    /// The bytes of a committed fixture under `Tests/DFUCoreTests/Fixtures`.
    static func fixture(_ relativePath: String) throws -> [UInt8] {
        let url = packageRoot.appendingPathComponent("Tests/DFUCoreTests/Fixtures").appendingPathComponent(relativePath)
        return try [UInt8](Data(contentsOf: url))
    }
}

import ZipArchive

extension SharedData {
    /// Whether a committed fixture exists (they always should; this keeps a missing one visible as a skip).
    static func fixtureExists(_ relativePath: String) -> Bool {
        FileManager.default.fileExists(
            atPath: packageRoot.appendingPathComponent("Tests/DFUCoreTests/Fixtures").appendingPathComponent(relativePath).path)
    }

    /// One entry of a committed fixture zip.
    static func fixtureEntry(_ zipPath: String, _ entry: String) throws -> [UInt8] {
        try ZipArchive(bytes: fixture(zipPath)).read(entry)
    }
}

/// Reading zips in tests.
enum ZipArchiveHelper {
    /// All entries of a zip.
    static func entries(_ bytes: [UInt8]) throws -> [String: [UInt8]] {
        try ZipArchive.readAll(bytes: bytes)
    }
}
