import SystemSupport
/// `--passkey N` and `--passkey-file FILE`: the passkey a device shows while pairing, for `upload`
/// and the SMP device commands alike. A passkey on the command line is visible to every local user
/// in the process list (`/proc/PID/cmdline`); one in a file is visible to whoever may read the file.
enum PasskeyOption {
    /// The two options, as every command that pairs lists them.
    static let options: [OptionSpec] = [
        .value("passkey", "N", help: "the passkey (0 to 999999) a device shows while pairing; without it dfu asks on a terminal"),
        .value("passkey-file", "FILE",
               help: "read the passkey from FILE instead (its only line): not shown in the process list as --passkey is"),
    ]

    /// The passkey given by either option, or nil.
    static func passkey(_ arguments: ParsedArguments, context: CommandContext) throws(UsageError) -> UInt32? {
        let command = arguments.command
        let given = try arguments.integer("passkey", in: UInt32(0)...UInt32(999_999))
        guard let file = arguments.value("passkey-file") else { return given }
        if given != nil { throw UsageError("give --passkey or --passkey-file, not both", command: command) }
        let bytes: [UInt8]
        do {
            bytes = try context.readFile(file)
        } catch {
            throw UsageError("option --passkey-file: \(error.description)", command: command)
        }
        // Its contents are never echoed: the file may be the wrong one, and a secret.
        let text = String(decoding: bytes.prefix(64), as: UTF8.self).trimmingWhitespace
        guard bytes.count <= 64, !text.isEmpty, text.allSatisfy(\.isASCIIDigit), text.count <= 6, let value = UInt32(text) else {
            throw UsageError("option --passkey-file: \(file) does not hold one passkey (0 to 999999)", command: command)
        }
        return value
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        String(drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
