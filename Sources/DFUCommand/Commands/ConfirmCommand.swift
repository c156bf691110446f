import DFUCore

/// `dfu confirm --device D [--hash HEX | --image N]`: makes an image permanent on an SMP (MCUmgr) server.
enum ConfirmCommand: Subcommand {
    static let name = "confirm"
    static let abstract = "confirm an image on an nRF Connect SDK (SMP) device so MCUboot keeps it"
    static let synopsis = "--device ADDRESS|NAME [--hash HEX | --image N] [--adapter hciN] [--json]"
    static let discussion = """
        Confirms an image (image group, command 0, write with confirm): the running image after a
        test swap, which MCUboot would otherwise revert at the next reset, or, with --hash, the
        image with that hash (in the secondary slot it becomes pending and permanent: it swaps in
        at the next reset and stays). Without --hash, the image running in image --image N (0 by
        default) is confirmed by its hash. Prints the image list the device answers with.
        """
    static let examples: [(command: String, comment: String)] = [
        ("dfu confirm --device C0:FF:EE:00:12:34", "keep the image the device runs after 'dfu upload --no-reset' and a reset"),
        ("dfu confirm -d Zephyr --hash 97e1c535e2a02a2a514931e95a2361c9a80afa5df847dd5f8d11c30b9a2ab86c", "confirm a given image"),
    ]
    static let options: [OptionSpec] = SMPDeviceRequest.options + [
        .value("hash", "HEX", help: "the image to confirm, by its hash (64 hex digits for SHA-256), as 'dfu images' shows it"),
        .value("image", "N", help: "confirm the image running in image N", default: "0"),
        .flag("json", help: "print the image list afterwards as {\"device\": D, \"slots\": [...]}"),
    ]
    static let exitCodes: [ExitCode] = SMPDeviceRequest.exitCodes

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        var request = try SMPDeviceRequest(arguments, context: context)
        let imageNumber = try arguments.integer("image", in: 0...15)
        var hash: [UInt8]?
        if let text = arguments.value("hash") {
            if imageNumber != nil { throw UsageError("options --hash and --image exclude each other", command: name) }
            guard let bytes = hexBytes(text), [32, 48, 64].contains(bytes.count) else {
                throw UsageError("option --hash: '\(text)' is not an image hash (64, 96 or 128 hex digits)", command: name)
            }
            hash = bytes
        }
        if hash == nil {
            // The running image of image N, named by its hash (the request without one confirms only image 0's).
            let number = imageNumber ?? 0
            let answer = try await request.run(.images, context: context)
            // The confirmation goes to the device that answered, even when it was named by its name.
            request = request.pinned(to: answer)
            let slots = answer.slots ?? []
            guard let running = slots.first(where: { $0.image == number && $0.active }) ?? slots.first(where: { $0.image == number && $0.slot == 0 }),
                  let runningHash = running.hash else {
                throw DeviceStateError(description: "\(request.target.label) lists no running image \(number) with a hash; "
                    + "'dfu images' shows what it holds, 'dfu confirm --hash HEX' names an image")
            }
            hash = runningHash
        }
        let slots = try await request.run(.setState(.confirm(hash: hash)), context: context).slots ?? []
        if arguments.flag("json") {
            context.writeOutput(try SMPDeviceRequest.json(slots, device: request.target.label))
        } else {
            context.writeOutput(SMPDeviceRequest.table(slots))
        }
        return .success
    }

    /// Bytes from hex digits (either case), nil when the text is not an even number of hex digits.
    static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
