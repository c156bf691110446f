import DFUCommand
import Foundation
import Testing

/// Every kind of bad input gets exit 65 (66 for an unreadable file, 64 for a bad command line),
/// exactly one line on standard error naming the file and the cause, and nothing on standard output.
@Suite struct InspectBadInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let file: String
        let cause: String
        var testDescription: String { file }
    }

    /// The bad fixtures of Tests/Fixtures/bad (see its README) and the cause each must be named with.
    static let badPackages: [Case] = [
        Case(file: "not-a-zip.zip", cause: "not a zip archive"),
        Case(file: "empty.zip", cause: "the file is empty, not a zip archive"),
        Case(file: "truncated.zip", cause: "the zip archive is truncated"),
        Case(file: "no-manifest.zip", cause: "manifest.json: the package has no manifest"),
        Case(file: "invalid-json.zip", cause: "manifest.json: the file is not valid JSON"),
        Case(file: "missing-file.zip", cause: "app_1024.bin: named by manifest.json for the application part but missing"),
        Case(file: "two-system-parts.zip", cause: "manifest.json: the manifest has several system parts"),
        Case(file: "unknown-part.zip", cause: "manifest.json: unknown part 'firmware'"),
        Case(file: "zip-bomb.zip", cause: "app.bin: the entry declares 4096 bytes but holds more"),
        Case(file: "oversize.zip", cause: "app.bin: the entry declares 20971520 bytes, more than the 16777216 allowed"),
        Case(file: "dotdot-path.zip", cause: "\"../evil.bin\": unsafe entry name in the zip archive (the path has a '..' component)"),
        Case(file: "absolute-path.zip", cause: "\"/etc/evil.bin\": unsafe entry name in the zip archive (the path is absolute)"),
        Case(file: "truncated-init.zip", cause: "app_1024.dat: init packet is truncated"),
        Case(file: "garbage-init.zip", cause: "app_1024.dat: init packet uses wire type"),
        Case(file: "hash-mismatch.zip", cause: "app_1024.dat: init packet hash does not match app_1024.bin"),
        Case(file: "legacy-crc-mismatch.zip", cause: "app.dat: init packet hash does not match app.bin"),
    ]

    @Test(arguments: badPackages)
    func badPackageExitsWith65AndOneLineNamingFileAndCause(_ bad: Case) async {
        let path = TestData.fixtures.appendingPathComponent("bad").appendingPathComponent(bad.file).path
        let run = await RecordedRun.dfu("inspect", path)
        #expect(run.code == .badPackage)
        #expect(run.output.isEmpty, "no partial output on stdout")
        #expect(run.errorLines.count == 1)
        #expect(run.error.hasPrefix("dfu: \(path): \(bad.cause)"), "\(run.error)")
    }

    @Test func badPackageIsRefusedTheSameWayWithJSON() async {
        let path = TestData.fixtures.appendingPathComponent("bad/hash-mismatch.zip").path
        let run = await RecordedRun.dfu("inspect", "--json", path)
        #expect(run.code == .badPackage)
        #expect(run.output.isEmpty)
        #expect(run.errorLines.count == 1)
    }

    @Test func missingFileExitsWith66() async {
        let run = await RecordedRun.dfu("inspect", "/nonexistent/package.zip")
        #expect(run.code == .noInput)
        #expect(run.errorLines == ["dfu: /nonexistent/package.zip: cannot read: no such file"])
    }

    @Test func directoryIsNotAPackage() async {
        let run = await RecordedRun.dfu("inspect", TestData.fixtures.path)
        #expect(run.code == .noInput)
        #expect(run.error.contains("is a directory"))
    }

    @Test(arguments: [
        (["inspect"], "dfu: missing PACKAGE (see 'dfu inspect --help')"),
        (["inspect", "a.zip", "b.zip"], "dfu: unexpected argument 'b.zip' (see 'dfu inspect --help')"),
        (["inspect", "app.bin"], "dfu: a raw image (app.bin) needs --type (see 'dfu inspect --help')"),
        (["inspect", "app.bin", "--type", "firmware"],
         "dfu: option --type: 'firmware' is not one of application, bootloader, softdevice, softdevice_bootloader (see 'dfu inspect --help')"),
        (["inspect", "a.zip", "--type", "application"],
         "dfu: --type, --init, --sd-size and --bl-size are for raw .bin/.hex images, not packages (see 'dfu inspect --help')"),
        (["inspect", "sd_bl.bin", "--type", "softdevice_bootloader"],
         "dfu: a softdevice_bootloader image needs --sd-size and --bl-size (see 'dfu inspect --help')"),
        (["inspect", "a.zip", "--jsn"], "dfu: unknown option --jsn; did you mean --json? (see 'dfu inspect --help')"),
    ])
    func badCommandLineExitsWith64(arguments: [String], message: String) async {
        let run = await RecordedRun.dfu(arguments: arguments)
        #expect(run.code == .usage)
        #expect(run.output.isEmpty)
        #expect(run.error == message + "\n")
    }
}

