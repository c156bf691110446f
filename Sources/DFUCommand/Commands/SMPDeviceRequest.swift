import DFUCore
import Synchronization

/// One SMP (MCUmgr) management request to one device, as `dfu images`, `dfu confirm`, `dfu reset` and `dfu erase`
/// make it: the options they share, and the run (open the link, connect, check the device is an SMP
/// server, send, close).
struct SMPDeviceRequest: Sendable {
    /// What is asked of the device.
    enum Kind: Sendable {
        /// Read the image list.
        case images
        /// Mark for test or confirm (an ``SMPRequest/test(hash:)`` or ``SMPRequest/confirm(hash:)``).
        case setState(SMPRequest)
        /// Reset the device.
        case reset
        /// Erase a slot (counted over all images; nil: the device's default, the running image's other slot).
        case erase(slot: Int?)
    }

    /// The device (only the one named: SMP devices never move to another address).
    private(set) var target: DeviceTarget
    /// The adapter (nil: the default).
    let adapter: String?
    /// Scan and connect timeouts.
    let options: DFUOptions
    /// How the link moves data and pairs.
    let preferences: LinkPreferences
    /// `-v` count.
    let verbosity: Int

    /// The options every SMP management command takes.
    static let options: [OptionSpec] = {
        let defaults = DFUOptions()
        return [
            .value("device", short: "d", "ADDRESS|NAME", help: "the device (an SMP server: nRF Connect SDK, Zephyr); only this address, or a name no other device advertises"),
            .value("adapter", short: "a", "hciN", help: "Bluetooth adapter to use (default: BlueZ's default)"),
            .value("scan-timeout", short: "t", "SECONDS", help: "how long to scan for the device",
                   default: OptionSpec.seconds(defaults.scanTimeout)),
            .value("connect-timeout", "SECONDS", help: "how long connecting and discovery may take",
                   default: OptionSpec.seconds(defaults.connectTimeout)),
        ] + PasskeyOption.options + [
            .flag("no-acquire", help: "no AcquireWrite/AcquireNotify: writes by WriteValue, notifications by signals"),
            .flag("verbose", short: "v", repeatable: true, help: "connections on standard error; -vv traces every request and response"),
        ]
    }()

    /// The exit codes these commands can return.
    static let exitCodes: [ExitCode] = [
        .success, .deviceRejected, .deviceNotFound, .usage, .unavailable, .outputFailed, .busy, .unsafeSetup, .software, .systemError, .interrupted,
    ]

    /// Reads the shared options.
    init(_ arguments: ParsedArguments, context: CommandContext) throws(UsageError) {
        let command = arguments.command
        _ = try arguments.positionals(named: [])
        guard let text = arguments.value("device"), !text.isEmpty else { throw UsageError("missing --device ADDRESS|NAME", command: command) }
        target = DeviceTarget(text)
        adapter = arguments.value("adapter")
        if let adapter, !UploadSettings.isAdapterName(adapter) {
            throw UsageError("option --adapter: '\(adapter)' is not an adapter name like hci0", command: command)
        }
        var options = DFUOptions()
        if let seconds = try UploadSettings.seconds(arguments, "scan-timeout") { options.scanTimeout = seconds }
        if let seconds = try UploadSettings.seconds(arguments, "connect-timeout") { options.connectTimeout = seconds }
        self.options = options
        let passkey = try PasskeyOption.passkey(arguments, context: context)
        preferences = LinkPreferences(acquiresSockets: !arguments.flag("no-acquire"), passkey: passkey,
                                      passkeyPrompt: passkey == nil ? context.passkeyPrompt : nil)
        verbosity = arguments.count("verbose")
    }

    /// The answer to a request: the image list (nil for a reset) and the address of the device that answered.
    struct Answer: Sendable {
        let slots: [SMPImageSlotState]?
        let address: DFUDeviceAddress?
    }

    /// Sends the request and returns the image list the device answered with (nil for a reset). A name
    /// more than one device advertises is refused first (``AmbiguousNameError``). An interrupt stops it
    /// (``DFUError/aborted(step:)``); the link is closed either way.
    func run(_ kind: Kind, context: CommandContext) async throws -> Answer {
        let resolved = try await target.requireUniqueName(adapter: adapter, context: context, action: Self.action(kind))
        // The device's lock, as an upload takes it: never a request to a device another dfu is updating.
        let locks = context.locksDevices ? DeviceLocks(environment: context.environment) : nil
        defer { locks?.releaseAll() }
        if let locks, let resolved { try locks.claim(resolved) }
        let session = try await context.transports.open(adapter, target.label, preferences: preferences)
        let label = target.label
        let verbosity = verbosity
        let connected = Mutex<DFUDeviceAddress?>(nil)
        let base: any DFUTransport = locks.map { LockingTransport(base: session.transport, locks: $0) } ?? session.transport
        let tracer = TransportTracer()
        let observed = ObservedTransport(base: base) { observation in
            if case .connected(let peer) = observation { connected.withLock { $0 = $0 ?? peer.address } }
            if verbosity >= 2 {
                for line in tracer.lines(for: observation) { context.writeError(TerminalText.escaped("\(label): \(line)") + "\n") }
            } else if verbosity == 1, case .connected = observation {
                context.writeError(TerminalText.escaped("\(label): \(observation.traceLine)") + "\n")
            }
        }
        let transport = InterruptibleTransport(base: observed, interrupts: context.interrupts)
        let result = await withTaskExecutorPreference(session.executor) {
            await Self.send(kind, to: target.selector, transport: transport, clock: session.clock, options: options)
        }
        await session.close()
        if let failure = locks?.failure { throw failure.failure }
        if context.interrupts.isInterrupted, case .failure = result {
            throw InterruptedError(description: "\(Self.commandName(kind)) interrupted; " + Self.leftAfterInterrupt(kind))
        }
        if case .failure(let error) = result { throw RequestFailure(error: error) }
        return Answer(slots: try result.get(), address: connected.withLock { $0 })
    }

    /// A request's failure: the engine's error, told without an upload's advice (nothing is uploaded).
    struct RequestFailure: Error, CustomStringConvertible {
        let error: DFUError
        var description: String { error.description(uploading: false) }
    }

    /// The same request for the device that answered `answer`: a second request (`dfu confirm` reads the
    /// image list first) goes to that address, not to whichever device has the name by then.
    func pinned(to answer: Answer) -> SMPDeviceRequest {
        guard let address = answer.address else { return self }
        var request = self
        request.target = DeviceTarget(label: target.label, address: address)
        return request
    }

    /// The end of the refusal of an ambiguous name: "give the address of the one to …".
    private static func action(_ kind: Kind) -> String {
        switch kind {
        case .images: "read"
        case .setState: "confirm"
        case .reset: "reset"
        case .erase: "erase"
        }
    }

    private static func commandName(_ kind: Kind) -> String {
        switch kind {
        case .images: "images"
        case .setState: "confirm"
        case .reset: "reset"
        case .erase: "erase"
        }
    }

    /// What an interrupted request leaves on the device.
    private static func leftAfterInterrupt(_ kind: Kind) -> String {
        switch kind {
        case .images: "nothing on the device was changed"
        case .setState: "the device may or may not have taken the request; 'dfu images' shows its state"
        case .reset: "the device may or may not have reset"
        case .erase: "the device may or may not have erased the slot; 'dfu images' shows its state"
        }
    }

    private static func send<C: Clock>(_ kind: Kind, to device: DFUDeviceSelector, transport: InterruptibleTransport, clock: C,
                                       options: DFUOptions) async -> Result<[SMPImageSlotState]?, DFUError>
        where C.Duration == Duration {
        let runner = DFURunner(transport: transport, clock: clock, options: options)
        do throws(DFUError) {
            switch kind {
            case .images: return .success(try await runner.images(device: device))
            case .setState(let request): return .success(try await runner.setImageState(request, device: device))
            case .reset:
                try await runner.reset(device: device)
                return .success(nil)
            case .erase(let slot):
                try await runner.erase(slot: slot, device: device)
                return .success(nil)
            }
        } catch {
            return .failure(error)
        }
    }

    /// The image list as JSON: `{"device": …, "slots": [{"image", "slot", "version", "hash", "active",
    /// "pending", "confirmed", "permanent", "bootable"}]}` on one line, keys sorted.
    static func json(_ slots: [SMPImageSlotState], device: String) throws -> String {
        struct Slot: Encodable {
            let image, slot: Int
            let version, hash: String
            let active, pending, confirmed, permanent, bootable: Bool
        }
        struct Answer: Encodable {
            let device: String
            let slots: [Slot]
        }
        let ordered = slots.sorted { ($0.image, $0.slot) < ($1.image, $1.slot) }
        let answer = Answer(device: device, slots: ordered.map {
            Slot(image: $0.image, slot: $0.slot, version: $0.displayVersion, hash: $0.hashHex, active: $0.active, pending: $0.pending,
                 confirmed: $0.confirmed, permanent: $0.permanent, bootable: $0.bootable)
        })
        return try JSONLine.encoded(answer)
    }

    /// The image list as a table, one line per slot, ordered by image then slot; versions come from the
    /// device and are escaped.
    static func table(_ slots: [SMPImageSlotState]) -> String {
        var text = "IMAGE  SLOT  VERSION           STATE                        HASH\n"
        for entry in slots.sorted(by: { ($0.image, $0.slot) < ($1.image, $1.slot) }) {
            var flags: [String] = []
            if entry.active { flags.append("active") }
            if entry.confirmed { flags.append("confirmed") }
            if entry.pending { flags.append("pending") }
            if entry.permanent { flags.append("permanent") }
            let state = flags.isEmpty ? "-" : flags.joined(separator: ", ")
            text += String(entry.image).padding(5) + "  " + String(entry.slot).padding(4) + "  "
            text += TerminalText.escaped(entry.displayVersion).padding(16) + "  " + state.padding(27) + "  "
            text += (entry.hash == nil ? "-" : entry.hashHex) + "\n"
        }
        return text
    }
}
