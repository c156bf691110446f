import DFUCore

/// Everything `dfu upload` was asked to do, validated before any Bluetooth work starts.
///
/// A bad value is a ``UsageError`` (exit 64) naming the option and what is allowed.
struct UploadSettings: Sendable {
    /// The firmware: one file, or for a mixed fleet an nRF5 package and an MCUboot file (each device gets
    /// the one it takes).
    let sources: [PackageSource]
    /// `--key`: the public key path.
    let keyPath: String?
    /// `--device` values, in order (`--devices-from` adds to them when the file is read).
    let devices: [DeviceTarget]
    /// `--devices-from`: the file paths, in order.
    let devicesFiles: [String]
    /// `--adapter` values, in order; empty = the default adapter.
    let adapters: [String]
    /// How many devices are updated at once.
    let parallel: Int
    /// The engine's options.
    let options: DFUOptions
    /// How links move data (`--no-acquire`).
    let link: LinkPreferences
    /// Output mode.
    let output: OutputMode
    /// `-v` count: 1 = state changes and details, 2 = also every request and response.
    let verbosity: Int
    /// The options of an MCUboot upload over SMP.
    let smp: SMPSettings
    /// The first nRF5-only option given, if any (refused with an MCUboot image).
    let nrf5OnlyOptionGiven: String?
    /// The first SMP-only option given, if any (refused with an nRF5 package).
    let smpOnlyOptionGiven: String?

    /// The options only an nRF5 update takes (the raw image options are checked with the file).
    static let nrf5OptionNames = [
        "prn", "force-dfu", "experimental-buttonless", "uuid", "alt-name", "no-alt-name",
        "scope", "no-resume", "packet-size", "first-object-delay", "object-delay",
    ]

    /// Updates per adapter at once when `--parallel` is not given: BlueZ controllers keep a few LE
    /// links comfortably; more slows every upload down.
    static let defaultParallelPerAdapter = 4

    /// The options of `dfu upload`; the engine's defaults are read from `DFUOptions()`.
    static let options: [OptionSpec] = {
        let defaults = DFUOptions()
        return [
            .value("device", short: "d", "ADDRESS|NAME", repeatable: true,
                   help: "the device to update (repeat for several); nothing else but its DFU bootloader at address + 1 when it is absent"),
            .value("devices-from", "FILE", repeatable: true,
                   help: "read more devices from FILE, one address or name per line (# starts a comment); repeatable"),
            .value("adapter", short: "a", "hciN", repeatable: true,
                   help: "Bluetooth adapter to use (repeat to spread devices over several); default: BlueZ's default"),
            .value("parallel", short: "j", "N", help: "update up to N devices at once",
                   default: "\(defaultParallelPerAdapter) per adapter"),
            .value("prn", "N", help: "packet receipt notification every N packets, 0 = off",
                   default: String(defaults.packetReceiptNotifications)),
            .flag("force-dfu", help: "treat a Legacy device without DFU Version characteristic as a bootloader"),
            .flag("experimental-buttonless", help: "allow the unauthenticated SDK 12 experimental buttonless service"),
            .value("uuid", "ROLE=UUID", repeatable: true, help: "replace the GATT UUID of a role (roles listed above)"),
            .value("alt-name", "NAME", help: "name the bootloader advertises after a buttonless jump (default: random DfuNNNNN)"),
            .flag("no-alt-name", help: "do not rename the bootloader (for firmware that reboots on the rename request)"),
            .value("bootloader-address", "ADDR", help: "the bootloader's (or MCUboot firmware loader's) address, when it is not the same or +1 "
                + "(a firmware loader: the same, or bit 0 of the last byte inverted)"),
            .value("bootloader-name", "NAME", help: "the bootloader's (or MCUboot firmware loader's) advertised name"),
            .value("scope", "all|system|application", help: "which parts of the package to send", default: defaults.scope.rawValue),
            .value("scan-timeout", short: "t", "SECONDS", help: "how long to scan for a device",
                   default: OptionSpec.seconds(defaults.scanTimeout)),
            .value("connect-timeout", "SECONDS", help: "how long connecting and discovery may take",
                   default: OptionSpec.seconds(defaults.connectTimeout)),
            .value("retries", "N", help: "N + 1 Connect calls per connection, N reconnections after a lost link",
                   default: String(defaults.reconnectAttempts)),
            .value("deadline", "SECONDS|auto",
                   help: "end a device's update that has not finished after this long (1-86400 s); auto = 300 s + 4 ms per firmware byte",
                   default: DFUDeadline.automatic.description),
            .flag("no-resume", help: "nRF5: start every object over instead of resuming an interrupted upload (SMP: 'dfu erase' first)"),
            .flag("no-acquire", help: "no AcquireWrite/AcquireNotify: packets by WriteValue, notifications by signals"),
            .value("packet-size", "BYTES", help: "largest data packet (default: the MTU allows, multiple of 4)"),
            .value("first-object-delay", "MS",
                   help: "wait MS after creating the first data object (default: no fixed wait, packets are paced to the flash)"),
            .value("object-delay", "MS", help: "wait after creating every data object",
                   default: OptionSpec.milliseconds(defaults.objectDelay)),
            .value("key", "PUBLIC.pem", help: "public key (PEM): refuse to upload unless the signature verifies (ECDSA P-256; for MCUboot also Ed25519, RSA)"),
        ] + PasskeyOption.options + [
            .flag("json", help: "JSON Lines events on standard output (schema in docs/cli.md)"),
            .flag("quiet", short: "q", help: "print only errors"),
            .flag("verbose", short: "v", repeatable: true, help: "more detail; -vv traces every request and response"),
        ] + SMPSettings.options + PackageSource.options
    }()

    /// Validates every option; reads no file and touches no device.
    init(_ arguments: ParsedArguments, context: CommandContext) throws(UsageError) {
        let command = arguments.command
        func usage(_ text: String) -> UsageError { UsageError(text, command: command) }

        let paths = arguments.positionals
        if paths.isEmpty { throw usage("missing PACKAGE") }
        if paths.count > 2 { throw usage("unexpected argument '\(paths[2])'") }
        sources = try paths.map { path throws(UsageError) in try PackageSource(path: path, arguments: arguments) }
        let path = paths[0]
        let source = sources[0]
        if sources.count == 2, sources.contains(where: \.isRawImageName),
           arguments.isGiven("type") || arguments.isGiven("init") {
            throw usage("--type and --init are for one raw nRF5 image; with two files, give a package (zip) for the nRF5 devices")
        }
        if source.rawKind != nil && source.initPath == nil {
            // Secure bootloaders and Legacy ones from SDK 7 on need the init packet; only SDK 6 and older
            // took an image alone. Asking here beats finding out after connecting to the device.
            throw usage("a raw image (\(path)) needs its init packet: add --init FILE.dat")
        }
        keyPath = arguments.value("key")
        devices = arguments.all("device").map(DeviceTarget.init)
        devicesFiles = arguments.all("devices-from")
        if devices.isEmpty && devicesFiles.isEmpty {
            throw usage("missing --device ADDRESS|NAME (or --devices-from FILE)")
        }
        for name in arguments.all("device") where name.isEmpty {
            throw usage("option --device: the address or name is empty")
        }

        adapters = arguments.all("adapter")
        for adapter in adapters where !Self.isAdapterName(adapter) {
            throw usage("option --adapter: '\(adapter)' is not an adapter name like hci0")
        }
        if Set(adapters).count != adapters.count {
            throw usage("option --adapter: an adapter is given twice")
        }
        parallel = try arguments.integer("parallel", in: 1...64)
            ?? Self.defaultParallelPerAdapter * max(1, adapters.count)

        options = try Self.dfuOptions(arguments)
        smp = try SMPSettings(arguments)
        nrf5OnlyOptionGiven = Self.nrf5OptionNames.first(where: arguments.isGiven)
        smpOnlyOptionGiven = SMPSettings.optionNames.first(where: arguments.isGiven)
        let passkey = try PasskeyOption.passkey(arguments, context: context)
        link = LinkPreferences(acquiresSockets: !arguments.flag("no-acquire"), passkey: passkey,
                               passkeyPrompt: passkey == nil ? context.passkeyPrompt : nil)

        verbosity = arguments.count("verbose")
        let quiet = arguments.flag("quiet")
        if quiet && verbosity > 0 { throw usage("options --quiet and --verbose exclude each other") }
        if arguments.flag("json") {
            if quiet { throw usage("options --json and --quiet exclude each other") }
            output = .json
        } else if quiet {
            output = .quiet
        } else if context.mayRedrawErrorStream {
            output = .live(colour: context.mayColourErrorStream)
        } else {
            output = .plain
        }
    }

    /// `hci` followed by a number.
    static func isAdapterName(_ text: String) -> Bool {
        text.hasPrefix("hci") && text.count > 3 && text.dropFirst(3).allSatisfy(\.isASCII) && Int(text.dropFirst(3)) != nil
    }

    /// The options handed to the engine: PRN, forcing, UUIDs, the bootloader's naming, scope and timing.
    private static func dfuOptions(_ arguments: ParsedArguments) throws(UsageError) -> DFUOptions {
        func usage(_ text: String) -> UsageError { UsageError(text, command: arguments.command) }
        var options = DFUOptions()
        if let prn = try arguments.integer("prn", in: UInt16(0)...UInt16.max) { options.packetReceiptNotifications = prn }
        options.forceDFU = arguments.flag("force-dfu")
        options.experimentalButtonless = arguments.flag("experimental-buttonless")
        for assignment in arguments.all("uuid") {
            let pieces = assignment.split(separator: "=", maxSplits: 1).map(String.init)
            guard pieces.count == 2, let role = DFUServiceUUIDs.Role(rawValue: pieces[0]) else {
                throw usage("option --uuid: '\(assignment)' is not ROLE=UUID with ROLE one of \(DFUServiceUUIDs.Role.names)")
            }
            guard let uuid = DFUServiceUUIDs.Role.canonical(pieces[1]) else {
                throw usage("option --uuid: '\(pieces[1])' is not a UUID (FE59, 0000FE59 or 8EC90001-F315-4F60-9FB8-838830DAEA50)")
            }
            options.uuids[keyPath: role.keyPath] = uuid
        }
        try takeBootloaderNaming(arguments, into: &options)
        if let text = arguments.value("scope") {
            guard let scope = DFUScope(rawValue: text) else {
                throw usage("option --scope: '\(text)' is not one of all, system, application")
            }
            options.scope = scope
        }
        if let seconds = try Self.seconds(arguments, "scan-timeout") { options.scanTimeout = seconds }
        if let seconds = try Self.seconds(arguments, "connect-timeout") { options.connectTimeout = seconds }
        if let retries = try arguments.integer("retries", in: 0...20) {
            options.reconnectAttempts = retries
            options.connectionAttempts = retries + 1
        }
        if let text = arguments.value("deadline"), text != "auto" {
            guard let value = Double(text), value.isFinite, value >= 1, value <= 86_400 else {
                throw usage("option --deadline: '\(text)' is not auto or a number of seconds from 1 to 86400")
            }
            options.deadline = .fixed(.milliseconds(Int((value * 1000).rounded())))
        }
        options.resume = !arguments.flag("no-resume")
        if let size = try arguments.integer("packet-size", in: 20...512) {
            guard size % 4 == 0 else {
                throw usage("option --packet-size: \(size) is not a multiple of 4 (Secure DFU packets are word aligned)")
            }
            options.packetSizeCap = size
        }
        if let delay = try arguments.integer("first-object-delay", in: 0...10_000) {
            options.firstObjectDelay = .milliseconds(delay)
            options.firstObjectDelayIsExplicit = true
        }
        if let delay = try arguments.integer("object-delay", in: 0...10_000) { options.objectDelay = .milliseconds(delay) }
        return options
    }

    /// `--alt-name`, `--no-alt-name`, `--bootloader-address`, `--bootloader-name`: how the bootloader is found.
    private static func takeBootloaderNaming(_ arguments: ParsedArguments, into options: inout DFUOptions) throws(UsageError) {
        func usage(_ text: String) -> UsageError { UsageError(text, command: arguments.command) }
        if let name = arguments.value("alt-name") {
            if arguments.flag("no-alt-name") { throw usage("options --alt-name and --no-alt-name exclude each other") }
            guard (1...20).contains(name.utf8.count) else {
                throw usage("option --alt-name: '\(name)' must be 1 to 20 bytes of UTF-8")
            }
            options.alternativeName = .named(name)
        } else if arguments.flag("no-alt-name") {
            options.alternativeName = .off
        }
        if let text = arguments.value("bootloader-address") {
            guard let address = DFUDeviceAddress(text) else {
                throw usage("option --bootloader-address: '\(text)' is not an address like C0:FF:EE:00:12:34")
            }
            options.bootloaderAddress = address
        }
        if let name = arguments.value("bootloader-name") {
            guard !name.isEmpty else { throw usage("option --bootloader-name: the name is empty") }
            options.bootloaderName = name
        }
    }

    /// A duration in seconds (decimals allowed), from 0.1 to 3600.
    static func seconds(_ arguments: ParsedArguments, _ name: String) throws(UsageError) -> Duration? {
        guard let text = arguments.value(name) else { return nil }
        guard let value = Double(text), value.isFinite, value >= 0.1, value <= 3600 else {
            throw UsageError("option --\(name): '\(text)' is not a number of seconds from 0.1 to 3600", command: arguments.command)
        }
        return .milliseconds(Int((value * 1000).rounded()))
    }

    /// The adapter for the device at `index`: devices are dealt over the adapters in turn.
    func adapter(forDeviceAt index: Int) -> String? {
        adapters.isEmpty ? nil : adapters[index % adapters.count]
    }
}
