@testable import DFUCommand
import Testing

@Suite struct ParsedArgumentsTests {
    let specs: [OptionSpec] = [
        .flag("json", help: "JSON"),
        .flag("verbose", short: "v", repeatable: true, help: "more"),
        .flag("quiet", short: "q", help: "less"),
        .value("prn", "N", help: "PRN"),
        .value("device", short: "d", "ADDRESS", repeatable: true, help: "device"),
    ]

    @Test func splitsLongShortInlineAndPositionalArguments() throws {
        let parsed = try ParsedArguments(
            ["pkg.zip", "--prn", "4", "--device=AA:BB", "-d", "CC", "-vvq", "--json"], specs: specs, command: "upload")
        #expect(parsed.positionals == ["pkg.zip"])
        #expect(parsed.value("prn") == "4")
        #expect(parsed.all("device") == ["AA:BB", "CC"])
        #expect(parsed.count("verbose") == 2)
        #expect(parsed.flag("quiet"))
        #expect(parsed.flag("json"))
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try ParsedArguments(["--", "--json"], specs: specs, command: "inspect")
        #expect(parsed.positionals == ["--json"])
        #expect(!parsed.flag("json"))
    }

    @Test(arguments: [
        (["--prn"], "option --prn needs a value (N)"),
        (["--json=yes"], "option --json takes no value"),
        (["--prn", "1", "--prn", "2"], "option --prn is given twice"),
        (["--jsno"], "unknown option --jsno; did you mean --json?"),
        (["-x"], "unknown option -x"),
    ])
    func rejectsMalformedCommandLines(arguments: [String], message: String) {
        #expect(throws: UsageError(message, command: "upload")) {
            try ParsedArguments(arguments, specs: specs, command: "upload")
        }
    }

    @Test func integerOutsideItsRangeNamesTheOptionAndTheRange() throws {
        let parsed = try ParsedArguments(["--prn", "70000"], specs: specs, command: "upload")
        #expect(throws: UsageError("option --prn: '70000' is not a whole number from 0 to 65535", command: "upload")) {
            _ = try parsed.integer("prn", in: UInt16.min...UInt16.max)
        }
    }
}
