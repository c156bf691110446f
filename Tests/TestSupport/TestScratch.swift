public import Foundation

/// This test process's folder for temporary files (`$TMPDIR/dfu-tests-PID`), removed when the
/// process exits: a test's files are gone after the run even when the test did not remove them.
public enum TestScratch {
    /// The folder, created on first use.
    public static let root: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-tests-\(getpid())")
        try? FileManager.default.removeItem(at: url)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { TestScratch.removeRoot() }
        return url
    }()

    /// A fresh empty folder in ``root`` whose name starts with `prefix`.
    public static func folder(_ prefix: String) throws -> URL {
        let url = root.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private static func removeRoot() {
        try? FileManager.default.removeItem(at: root)
    }
}
