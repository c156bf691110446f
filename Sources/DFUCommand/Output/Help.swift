/// The text of `dfu --help` and `dfu COMMAND --help`.
enum Help {
    /// The exit-code table of every help page; docs/cli.md and the man page list the same codes (a test checks).
    static let exitCodes: [(ExitCode, String)] = [
        (.success, "success"),
        (.deviceRejected, "the device rejected the update (the remote error is named)"),
        (.deviceNotFound, "device not found, or it stopped answering within its timeouts or --deadline"),
        (.usage, "usage error: unknown option, bad value, missing argument"),
        (.badPackage, "bad package or firmware file, hash or signature check failed"),
        (.noInput, "a file named on the command line cannot be read"),
        (.unavailable, "BlueZ, the D-Bus system bus or the Bluetooth adapter is unavailable"),
        (.software, "internal error (a bug in dfu; please report it)"),
        (.systemError, "the system refused what dfu needs to run (descriptors for its event loop or Ctrl-C handler)"),
        (.cannotCreate, "an output file named on the command line cannot be created or written"),
        (.outputFailed, "standard output could not be written (e.g. a full disk)"),
        (.busy, "the device is being updated by another dfu process"),
        (.unsafeSetup, "unsafe setup refused: lock folder or file not the user's own, or a non-unix: D-Bus address"),
        (.interrupted, "interrupted (Ctrl-C or SIGTERM)"),
    ]

    static func overview() -> String {
        var text = """
            dfu \(DFUCommand.version): update Nordic nRF5 and nRF Connect SDK (MCUboot) firmware over Bluetooth LE through BlueZ

            Usage: dfu COMMAND [OPTIONS]

            Commands:

            """
        for command in DFUCommand.subcommands {
            text += "  \(command.name.padding(15))\(command.abstract)\n"
        }
        text += "  \("help".padding(15))show the help of a command: dfu help COMMAND\n"
        text += """

            Run 'dfu COMMAND --help' for a command's options and examples.

            Options:
              -h, --help      show this help
              -V, --version   print the version

            """
        text += exitCodeSection()
        return text
    }

    /// `dfu pkg --help`, `dfu help keys`: the commands of a group, each with its abstract.
    static func help(forGroup group: String) -> String {
        var text = "Usage: dfu \(group) COMMAND [OPTIONS]\n\nCommands:\n"
        for command in DFUCommand.subcommands where command.name.hasPrefix(group + " ") {
            text += "  \(command.name.padding(15))\(command.abstract)\n"
        }
        text += "\nRun 'dfu \(group) COMMAND --help' for a command's options and examples.\n"
        return text
    }

    static func help(for command: any Subcommand.Type) -> String {
        var text = "Usage: dfu \(command.name) \(command.synopsis)\n\n\(command.abstract)\n\n\(command.discussion)\n\nOptions:\n"
        let rows = command.options.map { ($0.synopsis, $0.helpLine) } + [("-h, --help", "show this help")]
        let width = (rows.map(\.0.count).max() ?? 0) + 2
        for (synopsis, help) in rows {
            text += "  \(synopsis.padding(width))\(help)\n"
        }
        if !command.examples.isEmpty {
            text += "\nExamples:\n"
            for example in command.examples {
                text += "  # \(example.comment)\n  \(example.command)\n"
            }
        }
        text += "\n" + exitCodeSection(only: command.exitCodes)
        return text
    }

    /// The exit-code table, limited to `only` when given (a command lists the codes it can return).
    static func exitCodeSection(only: [ExitCode]? = nil) -> String {
        var text = "Exit codes:\n"
        for (code, meaning) in exitCodes where only?.contains(code) ?? true {
            text += "  \(String(code.rawValue).padding(5))\(meaning)\n"
        }
        return text
    }
}

extension String {
    /// The string padded with spaces to at least `width` characters.
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
