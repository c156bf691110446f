import SystemSupport
import DFUCrypto

/// `dfu keys generate PRIVATE.pem`: a new ECDSA P-256 signing key, in the PEM form nrfutil 6.1.7's
/// `keys generate` writes (SEC 1 `EC PRIVATE KEY`, see ``ECDSAP256/PrivateKey``).
enum KeysGenerateCommand: Subcommand {
    static let name = "keys generate"
    static let abstract = "make an ECDSA P-256 signing key (PEM), as nrfutil keys generate"
    static let synopsis = "PRIVATE.pem"
    static let discussion = """
        Writes a new random P-256 private key as an 'EC PRIVATE KEY' PEM file, readable only by
        you (mode 0600). An existing file is never overwritten (nrfutil asks; dfu refuses).
        """
    static let examples: [(command: String, comment: String)] = [
        ("dfu keys generate private.pem", "a new signing key"),
        ("dfu keys display private.pem --key pk --format code --out_file dfu_public_key.c", "its public key for the bootloader build"),
    ]
    static let options: [OptionSpec] = []

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let path = try arguments.positionals(named: ["PRIVATE.pem"])[0]
        // Anything at the path counts, a dangling symbolic link included.
        if (try? FileSystem.linkStatus(of: path)) != nil {
            throw UsageError("\(path) exists; dfu does not overwrite a key (remove it first)", command: name)
        }
        let key = try ECDSAP256.PrivateKey.generate()
        // The check above gives the usual answer; the link-in below keeps a key another process
        // wrote meanwhile (two `keys generate` at once: one succeeds, the other says why not).
        try FileWriter.writeAtomically(key.privatePEM(), to: path, mode: 0o600, replacing: false)
        context.writeOutput("Generated private key and stored it in: \(path)\n")
        return .success
    }
}
