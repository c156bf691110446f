import Foundation
import TestSupport

/// Paths to the project's test data and to the shared data beside the checkout.
enum TestData {
    /// The package root, from this file's path (`Tests/DFUCommandTests/TestData.swift`).
    static let root = BuiltExecutable.packageRoot

    /// `Tests/Fixtures`, committed with the project.
    static let fixtures = root.appendingPathComponent("Tests/Fixtures")

    /// `<root>/../shared/nordic-samples`, present only on the project's own machines.
    static let nordicSamples = root.deletingLastPathComponent().appendingPathComponent("shared/nordic-samples")

    static var hasNordicSamples: Bool {
        FileManager.default.fileExists(atPath: nordicSamples.appendingPathComponent("samples.json").path)
    }

    /// A JSON file decoded as an array of objects.
    static func jsonArray(_ url: URL) throws -> [[String: Any]] {
        let data = try Data(contentsOf: url)
        guard let array = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return array
    }

    /// The built `dfu` executable.
    static var dfuExecutable: URL { BuiltExecutable.url("dfu") }
}
