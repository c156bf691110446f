import DFUCommand
import Testing

/// Every bad option value of `dfu upload` is refused with exit 64 before any Bluetooth work,
/// naming the option and what is allowed.
@Suite struct UploadValidationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let arguments: [String]
        let message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let app = UploadCommandTests.app
    static let device = ["--device", SimulatedRig.firstAddress]

    static let cases: [Case] = [
        Case(arguments: [], message: "missing --device ADDRESS|NAME (or --devices-from FILE)"),
        Case(arguments: device + ["--prn", "-1"], message: "option --prn: '-1' is not a whole number from 0 to 65535"),
        Case(arguments: device + ["--prn", "65536"], message: "option --prn: '65536' is not a whole number from 0 to 65535"),
        Case(arguments: device + ["--adapter", "usb0"], message: "option --adapter: 'usb0' is not an adapter name like hci0"),
        Case(arguments: device + ["--adapter", "hci0", "--adapter", "hci0"], message: "option --adapter: an adapter is given twice"),
        Case(arguments: device + ["--parallel", "0"], message: "option --parallel: '0' is not a whole number from 1 to 64"),
        Case(arguments: device + ["--uuid", "secure-packet"],
             message: "option --uuid: 'secure-packet' is not ROLE=UUID with ROLE one of secure-service"),
        Case(arguments: device + ["--uuid", "dfu-packet=FE59"], message: "option --uuid: 'dfu-packet=FE59' is not ROLE=UUID"),
        Case(arguments: device + ["--uuid", "secure-service=FE5"], message: "option --uuid: 'FE5' is not a UUID"),
        Case(arguments: device + ["--alt-name", "ThisNameIsLongerThan20"],
             message: "option --alt-name: 'ThisNameIsLongerThan20' must be 1 to 20 bytes of UTF-8"),
        Case(arguments: device + ["--alt-name", "X", "--no-alt-name"], message: "options --alt-name and --no-alt-name exclude each other"),
        Case(arguments: device + ["--bootloader-address", "C0:FF:EE"],
             message: "option --bootloader-address: 'C0:FF:EE' is not an address like C0:FF:EE:00:12:34"),
        Case(arguments: device + ["--bootloader-name", ""], message: "option --bootloader-name: the name is empty"),
        Case(arguments: device + ["--scope", "app"], message: "option --scope: 'app' is not one of all, system, application"),
        Case(arguments: device + ["--scan-timeout", "0"], message: "option --scan-timeout: '0' is not a number of seconds from 0.1 to 3600"),
        Case(arguments: device + ["--connect-timeout", "soon"],
             message: "option --connect-timeout: 'soon' is not a number of seconds from 0.1 to 3600"),
        Case(arguments: device + ["--retries", "21"], message: "option --retries: '21' is not a whole number from 0 to 20"),
        Case(arguments: device + ["--packet-size", "16"], message: "option --packet-size: '16' is not a whole number from 20 to 512"),
        Case(arguments: device + ["--packet-size", "102"], message: "option --packet-size: 102 is not a multiple of 4"),
        Case(arguments: device + ["--first-object-delay", "10001"],
             message: "option --first-object-delay: '10001' is not a whole number from 0 to 10000"),
        Case(arguments: device + ["--object-delay", "x"], message: "option --object-delay: 'x' is not a whole number from 0 to 10000"),
        Case(arguments: device + ["-q", "-v"], message: "options --quiet and --verbose exclude each other"),
        Case(arguments: device + ["--json", "-q"], message: "options --json and --quiet exclude each other"),
        Case(arguments: device + ["--force-dfu", "--force-dfu"], message: "option --force-dfu is given twice"),
        Case(arguments: device + ["--device", SimulatedRig.firstAddress], message: "device C0:FF:EE:00:00:01 is given twice"),
        Case(arguments: device + ["--prm", "4"], message: "unknown option --prm; did you mean --prn?"),
    ]

    @Test(arguments: cases)
    func badValueIsAUsageErrorNamingTheOption(_ testCase: Case) async {
        let rig = SimulatedRig([SimulatedRig.firstAddress: SimulatedRig.secureDevice()])
        let run = await rig.dfu(["upload", Self.app] + testCase.arguments)
        #expect(run.code == .usage)
        #expect(run.error.hasPrefix("dfu: " + testCase.message), "\(run.error)")
        #expect(run.error.hasSuffix(" (see 'dfu upload --help')\n"))
        #expect(run.errorLines.count == 1)
        #expect(run.output.isEmpty)
        // Nothing was opened: validation happens before any Bluetooth work.
        #expect(rig.adapters.isEmpty)
    }

    @Test func uploadHelpListsEveryOptionAndTheExitCodes() async {
        let run = await RecordedRun.dfu("upload", "--help")
        #expect(run.code == .success)
        for option in ["--device", "--devices-from", "--adapter", "--parallel", "--prn", "--force-dfu",
                       "--experimental-buttonless", "--uuid", "--alt-name", "--no-alt-name", "--bootloader-address",
                       "--bootloader-name", "--scope", "--scan-timeout", "--connect-timeout", "--retries", "--no-resume",
                       "--packet-size", "--first-object-delay", "--object-delay", "--key", "--json", "--quiet",
                       "--verbose", "--init", "--type", "--sd-size", "--bl-size"] {
            #expect(run.output.contains(option), "\(option)")
        }
        for code in ["  0 ", "  1 ", "  2 ", "  64 ", "  65 ", "  69 ", "  130 "] {
            #expect(run.output.contains("\n" + code), "\(code)")
        }
        #expect(run.output.contains("Examples:"))
    }
}
