public import Foundation

/// The checkout and the executables this build made (`dfu`, `dfu-sim`), as the tests find them.
public enum BuiltExecutable {
    /// The package root, from this file's path (`Tests/TestSupport/BuiltExecutable.swift`).
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The executable `name` beside the test bundle (so a sanitized test run gets the sanitized
    /// build), else in `.build/debug`.
    public static func url(_ name: String) -> URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return packageRoot.appendingPathComponent(".build/debug/" + name)
    }

    /// Whether `name` was built.
    public static func isBuilt(_ name: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: url(name).path)
    }
}
