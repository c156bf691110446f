import DFUCore
import DFUFormats

/// `dfu inspect PACKAGE`: shows what would be sent, part by part, and whether it checks out.
enum InspectCommand: Subcommand {
    static let name = "inspect"
    static let abstract = "show the parts of a DFU package or the images of an MCUboot file, and check them"
    static let synopsis = "PACKAGE [--key PUBLIC.pem] [--json]\n       dfu inspect FIRMWARE.bin|.hex --type TYPE [--init FILE.dat] [--sd-size N --bl-size N]\n       dfu inspect app_update.bin|zephyr.signed.hex|dfu_application.zip [--key PUBLIC.pem] [--json]"
    static let discussion = """
        Reads the package in memory (nothing is extracted) and shows its format and each part in
        upload order: the system part (SoftDevice, bootloader or both) first, then the
        application. For each part: the image's size, CRC-32, CRC-16 and SHA-256, the init packet
        decoded field by field, whether the image matches the hash in its init packet, and the
        signature status. With --key, a signature that does not verify, or a missing one, is an
        error (exit 65), as it is for 'dfu upload --key'.

        MCUboot images (nRF Connect SDK; a .bin or .hex starting with MCUboot's magic, no --type
        needed) and nRF Connect SDK zips (dfu_application.zip, dfu_mcuboot.zip) are read too: for
        each image its index, version, sizes, load address, flags and TLVs, whether the SHA-256 of
        header, body and protected TLVs matches the SHA256 TLV, the key hash, and with --key
        (ECDSA P-256, Ed25519, RSA-2048 or RSA-3072) whether the signature verifies. A mismatch,
        a malformed or truncated image, or with --key a signature that does not verify, is an
        error (exit 65).
        """
    static let examples: [(command: String, comment: String)] = [
        ("dfu inspect app_dfu_package.zip", "what is in a package"),
        ("dfu inspect app_dfu_package.zip --key public.pem", "also check the signature"),
        ("dfu inspect app_dfu_package.zip --json | jq '.parts[].bin_crc32'", "CRC-32 of every image"),
        ("dfu inspect app.hex --type application --init app.dat", "a raw image with its init packet"),
        ("dfu inspect dfu_application.zip --key root-ec-p256.pem", "the MCUboot images of an nRF Connect SDK build"),
    ]
    static let options: [OptionSpec] = [
        .value("key", "PUBLIC.pem", help: "public key (PEM): the signature must verify (ECDSA P-256; for MCUboot also Ed25519, RSA)"),
        .flag("json", help: "print one JSON object on standard output (schema in docs/cli.md)"),
    ] + PackageSource.options

    static let exitCodes: [ExitCode] = [.success, .usage, .badPackage, .noInput, .outputFailed, .software, .systemError, .interrupted]

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let path = try arguments.positionals(named: ["PACKAGE"])[0]
        let source = try PackageSource(path: path, arguments: arguments)
        let contents = try source.contents(keyPath: arguments.value("key"), context: context)
        let json = arguments.flag("json")
        // Every check passes before anything is printed: no partial output on failure.
        switch contents {
        case .nrf5(let report):
            do {
                _ = try report.checkedPackage()
            } catch {
                throw BadInputError(path: path, cause: error.description)
            }
            if json {
                context.writeOutput(try JSONLine.encoded(report))
            } else {
                context.writeOutput(TerminalText.lines(ReportTable.render(report, path: path, rawWithoutInit: source.rawKind != nil && source.initPath == nil)))
            }
        case .mcuboot(let report):
            do {
                try report.check()
            } catch {
                throw BadInputError(path: path, cause: source.causeWithoutOwnName(error.description))
            }
            if json {
                context.writeOutput(try JSONLine.encoded(report))
            } else {
                context.writeOutput(TerminalText.lines(MCUbootReportTable.render(report, path: path)))
            }
        }
        return .success
    }
}
