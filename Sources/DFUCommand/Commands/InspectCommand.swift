import DFUCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `dfu inspect PACKAGE`: shows what would be sent, part by part, and whether it checks out.
enum InspectCommand: Subcommand {
    static let name = "inspect"
    static let abstract = "show the parts of a DFU package and check them"
    static let synopsis = "PACKAGE [--key PUBLIC.pem] [--json]\n       dfu inspect FIRMWARE.bin|.hex --type TYPE [--init FILE.dat] [--sd-size N --bl-size N]"
    static let discussion = """
        Reads the package in memory (nothing is extracted) and shows its format and each part in
        upload order: the system part (SoftDevice, bootloader or both) first, then the
        application. For each part: the image's size, CRC-32, CRC-16 and SHA-256, the init packet
        decoded field by field, whether the image matches the hash in its init packet, and the
        signature status. With --key, a signature that does not verify, or a missing one, is an
        error (exit 65), as it is for 'dfu upload --key'.
        """
    static let examples: [(command: String, comment: String)] = [
        ("dfu inspect app_dfu_package.zip", "what is in a package"),
        ("dfu inspect app_dfu_package.zip --key public.pem", "also check the signature"),
        ("dfu inspect app_dfu_package.zip --json | jq '.parts[].bin_crc32'", "CRC-32 of every image"),
        ("dfu inspect app.hex --type application --init app.dat", "a raw image with its init packet"),
    ]
    static let options: [OptionSpec] = [
        .value("key", "PUBLIC.pem", help: "ECDSA P-256 public key (PEM): the signature must verify"),
        .flag("json", help: "print one JSON object on standard output (schema in docs/cli.md)"),
    ] + PackageSource.options

    static let exitCodes: [ExitCode] = [.success, .usage, .badPackage, .noInput, .outputFailed, .software, .interrupted]

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let path = try arguments.positionals(named: ["PACKAGE"])[0]
        let source = try PackageSource(path: path, arguments: arguments)
        let key = try PackageSource.key(at: arguments.value("key"), context: context, command: name)
        let report = try source.inspect(key: key, context: context)
        // Every check passes before anything is printed: no partial output on failure.
        do {
            _ = try report.checkedPackage()
        } catch {
            throw BadInputError(path: path, cause: error.description)
        }
        if arguments.flag("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(report)
            context.writeOutput(String(decoding: data, as: UTF8.self) + "\n")
        } else {
            context.writeOutput(TerminalText.lines(ReportTable.render(report, path: path, rawWithoutInit: source.rawKind != nil && source.initPath == nil)))
        }
        return .success
    }
}
