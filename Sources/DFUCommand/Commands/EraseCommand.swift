import DFUCore

/// `dfu erase --device D [--image N]`: erases an image's secondary slot on an SMP (MCUmgr) server.
enum EraseCommand: Subcommand {
    static let name = "erase"
    static let abstract = "erase the secondary slot of an nRF Connect SDK (SMP) device's image"
    static let synopsis = "--device ADDRESS|NAME [--image N] [--adapter hciN]"
    static let discussion = """
        Sends the image group's erase (command 5): without --image the device erases its default,
        the running image's other slot; with --image N, image N's secondary slot. The device refuses
        a slot in use (IMG_MGMT_ERR_NO_FREE_SLOT): an image marked to run at the next reset (reset to
        run it), or the image a tested one reverts to (confirm the running one first). 'dfu images'
        shows the slots. An upload erases the slot itself; erase drops an image you do not want
        swapped in, or an interrupted upload.
        """
    static let examples: [(command: String, comment: String)] = [
        ("dfu erase --device C0:FF:EE:00:12:34", "empty the slot the next upload goes to"),
        ("dfu erase -d Zephyr --image 1", "erase image 1's secondary slot (an nRF5340's network core)"),
    ]
    static let options: [OptionSpec] = SMPDeviceRequest.options + [
        .value("image", "N", help: "erase image N's secondary slot (slot 2N + 1 on the device)", default: "slot 1"),
    ]
    static let exitCodes: [ExitCode] = SMPDeviceRequest.exitCodes

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let request = try SMPDeviceRequest(arguments, context: context)
        let image = try arguments.integer("image", in: 0...15)
        let answer = try await request.run(.erase(slot: image.map { $0 * 2 + 1 }), context: context)
        let what = image.map { "the secondary slot of image \($0)" } ?? "its default slot"
        context.writeError(TerminalText.escaped("dfu: \(request.target.label(connectedTo: answer.address)) erased \(what)") + "\n")
        return .success
    }
}
