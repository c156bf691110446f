import DFUCommand
import Testing

@Suite struct DFUCommandTests {
    @Test func noArgumentsPrintsOverviewOnStandardErrorAndExitsWithUsage() async {
        let run = await RecordedRun.dfu()
        #expect(run.code == .usage)
        #expect(run.output.isEmpty)
        #expect(run.error.contains("Usage: dfu COMMAND"))
    }

    @Test func helpGoesToStandardOutputAndListsTheExitCodes() async {
        let run = await RecordedRun.dfu("--help")
        #expect(run.code == .success)
        #expect(run.error.isEmpty)
        for code in ["0", "1", "2", "64", "65", "69", "130"] {
            #expect(run.output.contains("\n  \(code) "), "exit code \(code) is documented")
        }
    }

    @Test func versionPrintsOneLine() async {
        let run = await RecordedRun.dfu("--version")
        #expect(run.code == .success)
        #expect(run.output == "dfu \(DFUCommand.version)\n")
    }

    @Test func unknownCommandIsAUsageErrorOnOneLine() async {
        let run = await RecordedRun.dfu("flash")
        #expect(run.code == .usage)
        #expect(run.output.isEmpty)
        #expect(run.errorLines == ["dfu: unknown command 'flash' (see 'dfu --help')"])
    }

    @Test func unknownTopLevelOptionIsAUsageError() async {
        let run = await RecordedRun.dfu("--frobnicate")
        #expect(run.code == .usage)
        #expect(run.errorLines.count == 1)
        #expect(run.error.contains("unknown option --frobnicate"))
    }
}
