import DFUCrypto
import SystemSupport

/// `dfu keys display PRIVATE.pem --key pk|sk --format hex|code|pem`: the key as nrfutil 6.1.7's
/// `keys display` shows it (`nordicsemi/dfu/signing.py`, `Signing.get_vk*`/`get_sk*`).
///
/// - `hex`: the public key as x and y each byte-reversed (a memory dump of two little-endian
///   256-bit numbers, the order the bootloader keeps them in), the private key byte-reversed.
/// - `code`: the public key as the C array `pk[64]` an nRF5 SDK bootloader is built with
///   (`dfu_public_key.c`), x then y, each byte-reversed, 32 `0x..` bytes per line.
/// - `pem`: the public key as `PUBLIC KEY` PEM, the private key as `EC PRIVATE KEY` PEM.
enum KeysDisplayCommand: Subcommand {
    static let name = "keys display"
    static let abstract = "show a key's public or private half, as nrfutil keys display"
    static let synopsis = "PRIVATE.pem --key pk|sk --format hex|code|pem [--out_file FILE]"
    static let discussion = """
        Reads an ECDSA P-256 private key (PEM) and prints its public key (pk) or private key (sk)
        in hex, as C code (public key only: the pk[64] array of the bootloader's
        dfu_public_key.c) or as PEM. With --out_file the text goes to that file instead.
        """
    static let examples: [(command: String, comment: String)] = [
        ("dfu keys display private.pem --key pk --format pem > public.pem", "the public key for 'dfu upload --key'"),
        ("dfu keys display private.pem --key pk --format code --out_file dfu_public_key.c", "the bootloader's key file"),
    ]
    static let options: [OptionSpec] = [
        .value("key", "pk|sk", help: "the public (pk) or private (sk) key"),
        .value("format", "hex|code|pem", help: "hexadecimal, C code (pk only) or PEM"),
        .value("out_file", "FILE", help: "write the text to FILE instead of standard output"),
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let path = try arguments.positionals(named: ["PRIVATE.pem"])[0]
        guard let which = arguments.value("key") else { throw UsageError("--key pk|sk is required", command: name) }
        guard ["pk", "sk"].contains(which) else { throw UsageError("option --key: '\(which)' is not pk or sk", command: name) }
        guard let format = arguments.value("format") else { throw UsageError("--format hex|code|pem is required", command: name) }
        guard ["hex", "code", "pem"].contains(format) else {
            throw UsageError("option --format: '\(format)' is not hex, code or pem", command: name)
        }
        if let file = arguments.value("out_file"), FileWriter.inputOverwritten(by: file, inputs: [("PRIVATE.pem", path)]) != nil {
            throw UsageError("option --out_file: \(file) is the private key being read; write to another file", command: name)
        }
        let key = try PkgGenerateCommand.privateKey(path, context: context)
        if format == "code" && which == "sk" {
            throw UsageError("the private key cannot be shown as code", command: name)
        }
        let text = which == "pk" ? publicText(key, format: format) : privateText(key, format: format)
        if let file = arguments.value("out_file") {
            try FileWriter.writeAtomically(Array(text.utf8), to: file, mode: which == "sk" ? 0o600 : nil)
        } else {
            context.writeOutput(text + "\n")
        }
        return .success
    }

    static func publicText(_ key: ECDSAP256.PrivateKey, format: String) -> String {
        let point = key.publicBytes
        let x = Array(point.prefix(32).reversed())
        let y = Array(point.suffix(32).reversed())
        switch format {
        case "hex":
            return "Public (verification) key pk:\n" + hex(x + y)
        case "code":
            let row = { (bytes: [UInt8]) in bytes.map { "0x" + hex([$0]) }.joined(separator: ", ") }
            return """

                /* Made by dfu \(DFUCommand.version) (dfu keys display --format code) on \(localTime()) */

                #include "stdint.h"
                #include "compiler_abstraction.h"

                /** @brief The key the bootloader verifies DFU init packets with */
                __ALIGN(4) const uint8_t pk[64] =
                {
                    \(row(x)),
                    \(row(y))
                };

                """
        default:
            return String(decoding: key.publicPEM(), as: UTF8.self)
        }
    }

    static func privateText(_ key: ECDSAP256.PrivateKey, format: String) -> String {
        let warning = "\nWARNING: Security risk! Do not share the private key.\n\n"
        if format == "hex" {
            return warning + "Private (signing) key sk:\n" + hex(key.privateBytes.reversed())
        }
        return warning + String(decoding: key.privatePEM(), as: UTF8.self)
    }

    /// The local time as `2026-12-01 at 15:56:37`.
    private static func localTime() -> String {
        LocalTime.now(format: "%Y-%m-%d at %H:%M:%S")
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
