public import Foundation

/// The inputs that once made a fuzz target crash, hang or leak, kept in
/// `Tests/Fixtures/fuzz-regressions/TARGET/` (each folder's README.md says what they were).
public enum FuzzRegressions {
    /// `Tests/Fixtures/fuzz-regressions`.
    public static let folder = BuiltExecutable.packageRoot.appendingPathComponent("Tests/Fixtures/fuzz-regressions")

    /// The input files kept for fuzz target `target`, by name, sorted.
    public static func inputs(_ target: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(target).path)) ?? []
        return names.filter { !$0.hasSuffix(".md") }.sorted()
    }

    /// The bytes of input `name` of `target`.
    public static func bytes(_ target: String, _ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: folder.appendingPathComponent(target).appendingPathComponent(name)))
    }
}
