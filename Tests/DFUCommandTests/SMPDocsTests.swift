import Foundation
import Testing

/// Issue 26 point 10: docs/cli.md, dfu.1 and `dfu upload --help` describe the SMP uploads `dfu` makes, not the
/// refusal of MCUboot images it made before it spoke SMP, and `--key` with every key type it takes.
@Suite struct SMPDocsTests {
    @Test func noDocumentSaysUploadRefusesMCUbootImages() throws {
        for path in ["docs/cli.md", "docs/dfu.1", "README.md"] {
            let text = try DocumentedDefaultsTests.document(path)
            #expect(!text.contains("does not speak"), "\(path)")
            #expect(!text.contains("refuses MCUboot images"), "\(path)")
            #expect(!text.contains("\\fBupload\\fR refuses them"), "\(path)")
        }
    }

    @Test func theManPagesDescriptionAndExamplesCoverSMP() throws {
        let page = try DocumentedDefaultsTests.document("docs/dfu.1")
        let description = try #require(page.components(separatedBy: ".SH DESCRIPTION").last?.components(separatedBy: ".SH COMMANDS").first)
        #expect(description.contains("SMP (MCUmgr)") && description.contains("MCUboot"))
        let examples = try #require(page.components(separatedBy: ".SH EXAMPLES").last?.components(separatedBy: ".SH SEE ALSO").first)
        #expect(examples.contains("dfu upload zephyr.signed.bin"))
        #expect(examples.contains("dfu images"))
    }

    @Test func uploadsKeyOptionNamesEveryKeyType() async throws {
        let help = await RecordedRun.dfu("upload", "--help")
        let line = try #require(help.output.split(separator: "\n").first { $0.contains("--key") })
        #expect(line.contains("Ed25519") && line.contains("RSA"), "\(line)")
        let page = try DocumentedDefaultsTests.document("docs/cli.md")
        let row = try #require(page.split(separator: "\n").first { $0.hasPrefix("| `--key PUBLIC.pem`") })
        #expect(row.contains("Ed25519") && row.contains("RSA-3072"), "\(row)")
    }
}
