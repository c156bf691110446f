import DFUCore

/// `dfu upload PACKAGE --device D…`: sends a package (or a raw image) to one or many devices: an nRF5
/// package by Secure or Legacy DFU, MCUboot images (nRF Connect SDK) over SMP.
enum UploadCommand: Subcommand {
    static let name = "upload"
    /// Every code but 73: an upload writes no file.
    static let exitCodes = Help.exitCodes.map(\.0).filter { $0 != .cannotCreate }
    static let abstract = "send a DFU package or MCUboot images to one or more devices"
    static let synopsis = """
        PACKAGE --device ADDRESS|NAME [--device …] [OPTIONS]
               dfu upload FIRMWARE.bin|.hex --type TYPE --init FILE.dat [--sd-size N --bl-size N] --device D [OPTIONS]
               dfu upload app_update.bin|zephyr.signed.hex|dfu_application.zip --device D [--confirm|--test] [--no-reset] [OPTIONS]
               dfu upload PACKAGE dfu_application.zip --devices-from FILE [OPTIONS]   (a fleet of nRF5 and SMP devices)
        """
    static let discussion = """
        Connects to each device, switches an application into its bootloader (buttonless) when
        needed, and sends every part of the package in scope: the system part (SoftDevice and/or
        bootloader) first, then the application, each in its own connection. A lost link is
        reconnected and the upload resumes where it stopped (Secure DFU).

        An MCUboot image (nRF Connect SDK, Zephyr: a .bin or .hex starting with MCUboot's magic)
        or an nRF Connect SDK zip (dfu_application.zip; on an nRF5340 the application and network
        core images) goes to an SMP (MCUmgr) server instead: the images are uploaded (several
        requests in flight, as the device's MCUmgr parameters allow), marked for test, the device
        is reset, and each image is confirmed once the device runs it (--test, the default);
        --confirm confirms at once, --no-reset leaves the swap to the next reset. A lost link or
        an interrupted run resumes from the device's offset. The file's kind must fit the device:
        an MCUboot image for an nRF5 device, or an nRF5 package for an SMP server, is refused
        before anything is written (exit 65), as are options of the other kind (exit 64). Given
        both an nRF5 package and an MCUboot file, each device gets the one it takes.

        Every option is checked before any Bluetooth work starts. With several devices
        (--device repeated, --devices-from) they are updated at the same time, up to --parallel
        at once, dealt over the adapters given with --adapter; one device's failure never stops
        the others, and the exit code is 0 only when every device was updated.

        On a terminal each device has a live line (part, bar, percent, bytes, current and average
        speed, ETA, state); otherwise plain lines, one per 10 % or 5 s at most. --json prints JSON
        Lines events on standard output instead. Ctrl-C or SIGTERM sends Abort where the
        bootloader supports it, disconnects, exits with 130 and says what running the same
        command again will do (resume, start the part over, or --scope application for the rest);
        SMP has no abort: the device keeps what it received and the same command resumes it.
        A device another dfu process is updating is left alone (exit 75).

        --uuid roles: secure-service, secure-control-point, secure-packet,
        buttonless-without-bonds, buttonless-with-bonds, experimental-buttonless-service,
        experimental-buttonless-characteristic, legacy-service, legacy-control-point,
        legacy-packet, legacy-version.
        """
    static let examples: [(command: String, comment: String)] = [
        ("dfu upload app_dfu_package.zip --device C0:FF:EE:00:12:34", "update one device"),
        ("dfu upload app.zip -d C0:FF:EE:00:12:34 --prn 4 --first-object-delay 400", "a bootloader that loses packets"),
        ("dfu upload sd_bl_app.zip -d MySensor --scope application", "only the application of a multi-part package"),
        ("dfu upload app.zip --devices-from rig.txt --adapter hci0 --adapter hci1 --json", "a production rig"),
        ("dfu upload app.bin --type application --init app.dat -d C0:FF:EE:00:12:34", "a raw image"),
        ("dfu upload app.zip -d DfuTarg --key public.pem", "refuse a package whose signature does not verify"),
        ("dfu upload dfu_application.zip -d C0:FF:EE:00:12:34", "an nRF Connect SDK device: test, reset, confirm"),
        ("dfu upload zephyr.signed.bin -d Zephyr --confirm --no-reset", "confirm now, swap at the next reset"),
        ("dfu upload app.zip dfu_application.zip --devices-from rig.txt", "a fleet of nRF5 and nRF Connect SDK devices"),
    ]
    static let options = UploadSettings.options
    /// Each device's machine says goodbye (Abort and its answer, Reset), disconnects and releases its link first.
    static let interruptGrace: Duration = .seconds(10)

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        let settings = try UploadSettings(arguments, context: context)
        var devices = settings.devices
        for file in settings.devicesFiles {
            let listed: [DeviceTarget]
            do {
                listed = try DeviceTarget.list(fromFile: String(decoding: try context.readFile(file), as: UTF8.self))
            } catch let defect as DeviceTarget.ListDefect {
                throw UsageError("option --devices-from: \(file) line \(defect.line) \(defect.reason)", command: name)
            }
            if listed.isEmpty { throw UsageError("option --devices-from: \(file) names no device", command: name) }
            devices += listed
        }
        var seen: Set<String> = []
        for device in devices where !seen.insert(device.label).inserted {
            throw UsageError("device \(device.label) is given twice", command: name)
        }
        let firmware = try UploadFirmware.load(settings, context: context)
        let renderer: any UploadRenderer
        switch settings.output {
        case .live(let colour):
            renderer = LiveProgressRenderer(context: context, devices: devices.map(\.label), colour: colour)
        case .plain: renderer = PlainProgressRenderer(context: context, quiet: false)
        case .quiet: renderer = PlainProgressRenderer(context: context, quiet: true)
        case .json: renderer = JSONLinesRenderer(context: context)
        }
        let outcomes = await UploadBatch(
            devices: devices, firmware: firmware, settings: settings, context: context, renderer: renderer
        ).run()
        let code = DeviceOutcome.exitCode(of: outcomes)
        renderer.finish(outcomes, code: code)
        return code
    }
}
