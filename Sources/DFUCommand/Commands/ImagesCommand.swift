import DFUCore

/// `dfu images --device D`: the image list of an SMP (MCUmgr) server.
enum ImagesCommand: Subcommand {
    static let name = "images"
    static let abstract = "list the image slots of an nRF Connect SDK (SMP) device"
    static let synopsis = "--device ADDRESS|NAME [--adapter hciN] [--json]"
    static let discussion = """
        Connects to an SMP (MCUmgr) server, reads its image list (image group, command 0) and prints
        one line per occupied slot: the image number (0 the application, 1 an nRF5340's network
        core), the slot (0 primary, 1 secondary), the version, the state (active, confirmed,
        pending, permanent) and the image's hash (its SHA256 TLV, as 'dfu inspect' shows it and
        'dfu confirm --hash' takes it). Nothing on the device is changed.
        """
    static let examples: [(command: String, comment: String)] = [
        ("dfu images --device C0:FF:EE:00:12:34", "what the device holds"),
        ("dfu images -d Zephyr --json | jq -r '.slots[] | select(.active) | .version'", "the running versions"),
    ]
    static let options: [OptionSpec] = SMPDeviceRequest.options + [
        .flag("json", help: "print {\"device\": D, \"slots\": [...]} on standard output (fields in docs/cli.md)"),
    ]
    static let exitCodes: [ExitCode] = SMPDeviceRequest.exitCodes

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let request = try SMPDeviceRequest(arguments, context: context)
        let slots = try await request.run(.images, context: context).slots ?? []
        if arguments.flag("json") {
            context.writeOutput(try SMPDeviceRequest.json(slots, device: request.target.label))
        } else {
            context.writeOutput(SMPDeviceRequest.table(slots))
        }
        return .success
    }
}
