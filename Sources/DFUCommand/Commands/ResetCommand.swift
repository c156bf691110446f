import DFUCore

/// `dfu reset --device D`: resets an SMP (MCUmgr) server.
enum ResetCommand: Subcommand {
    static let name = "reset"
    static let abstract = "reset an nRF Connect SDK (SMP) device; MCUboot swaps in a pending image"
    static let synopsis = "--device ADDRESS|NAME [--adapter hciN]"
    static let discussion = """
        Sends the OS group's reset request; the device answers, drops the link and restarts. An
        image marked for test or confirmed in the secondary slot is swapped in by MCUboot first
        (see 'dfu images'). Waits until the device has dropped the link.
        """
    static let examples: [(command: String, comment: String)] = [
        ("dfu reset --device C0:FF:EE:00:12:34", "restart the device; a pending image swaps in"),
    ]
    static let options: [OptionSpec] = SMPDeviceRequest.options
    static let exitCodes: [ExitCode] = SMPDeviceRequest.exitCodes

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let request = try SMPDeviceRequest(arguments, context: context)
        let answer = try await request.run(.reset, context: context)
        context.writeError(TerminalText.escaped("dfu: \(request.target.label(connectedTo: answer.address)) was reset") + "\n")
        return .success
    }
}
