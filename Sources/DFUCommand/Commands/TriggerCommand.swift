import DFUCore
import Synchronization

/// `dfu trigger --device D`: switches an application into its bootloader and says where it is.
enum TriggerCommand: Subcommand {
    static let name = "trigger"
    static let abstract = "switch an application into its bootloader (buttonless) and print where it is"
    static let synopsis = "--device ADDRESS|NAME [--adapter hciN] [--alt-name NAME | --no-alt-name] [--json]"
    static let discussion = """
        Connects to the device, and when it runs an application with a buttonless DFU service (or
        a Legacy application with the jump) asks it to restart into its bootloader, then finds
        the bootloader (same address, or the address + 1 for non-bonded Secure bootloaders) and
        prints its address and name on standard output. Nothing is uploaded; the bootloader
        waits for an update until its inactivity timeout (2 minutes by default in SDK 15-17).
        Only the device named is switched; a DFU bootloader at the address + 1 is reported when
        nothing advertises at the address (a device left in its bootloader). An SMP server has no
        nRF5 bootloader to switch to and is refused. A name two devices advertise is refused.
        """
    static let examples: [(command: String, comment: String)] = [
        ("dfu trigger --device C0:FF:EE:00:12:34", "prints e.g. 'C0:FF:EE:00:12:35 Dfu12345'"),
        ("dfu trigger -d MySensor --alt-name RigBoot --json", "name the bootloader, machine-readable answer"),
    ]
    static let options: [OptionSpec] = {
        let defaults = DFUOptions()
        return [
            .value("device", short: "d", "ADDRESS|NAME", help: "the device to switch"),
            .value("adapter", short: "a", "hciN", help: "Bluetooth adapter to use (default: BlueZ's default)"),
            .value("alt-name", "NAME", help: "name the bootloader advertises (default: random DfuNNNNN)"),
            .flag("no-alt-name", help: "do not rename the bootloader"),
            .flag("experimental-buttonless", help: "allow the unauthenticated SDK 12 experimental buttonless service"),
            .flag("force-dfu", help: "treat a Legacy device without DFU Version characteristic as a bootloader"),
            .value("scan-timeout", short: "t", "SECONDS", help: "how long to scan for the device and the bootloader",
                   default: OptionSpec.seconds(defaults.scanTimeout)),
            .value("connect-timeout", "SECONDS", help: "how long connecting may take",
                   default: OptionSpec.seconds(defaults.connectTimeout)),
            .flag("no-acquire", help: "no AcquireWrite/AcquireNotify: writes by WriteValue, notifications by signals"),
            .flag("json", help: "print {\"bootloader\": ADDRESS, \"name\": NAME, \"switched\": BOOL} on standard output"),
            .flag("quiet", short: "q", help: "print only the answer and errors"),
            .flag("verbose", short: "v", repeatable: true, help: "connections on standard error; -vv traces every request and response"),
        ]
    }()

    static let exitCodes: [ExitCode] = [
        .success, .deviceRejected, .deviceNotFound, .usage, .unavailable, .outputFailed, .busy, .unsafeSetup, .software, .systemError, .interrupted,
    ]

    struct Answer: Encodable {
        let bootloader: String
        let name: String?
        let switched: Bool
    }

    static func run(_ arguments: ParsedArguments, context: CommandContext) async throws -> ExitCode {
        _ = try arguments.positionals(named: [])
        guard let text = arguments.value("device"), !text.isEmpty else { throw UsageError("missing --device ADDRESS|NAME", command: name) }
        let target = DeviceTarget(text)
        let adapter = arguments.value("adapter")
        if let adapter, !UploadSettings.isAdapterName(adapter) {
            throw UsageError("option --adapter: '\(adapter)' is not an adapter name like hci0", command: name)
        }
        var options = DFUOptions()
        if let chosen = arguments.value("alt-name") {
            guard !arguments.flag("no-alt-name") else { throw UsageError("options --alt-name and --no-alt-name exclude each other", command: name) }
            guard (1...20).contains(chosen.utf8.count) else {
                throw UsageError("option --alt-name: '\(chosen)' must be 1 to 20 bytes of UTF-8", command: name)
            }
            options.alternativeName = .named(chosen)
        } else if arguments.flag("no-alt-name") {
            options.alternativeName = .off
        }
        options.experimentalButtonless = arguments.flag("experimental-buttonless")
        options.forceDFU = arguments.flag("force-dfu")
        if let seconds = try UploadSettings.seconds(arguments, "scan-timeout") { options.scanTimeout = seconds }
        if let seconds = try UploadSettings.seconds(arguments, "connect-timeout") { options.connectTimeout = seconds }

        let quiet = arguments.flag("quiet")
        let verbosity = arguments.count("verbose")
        if quiet && verbosity > 0 { throw UsageError("options --quiet and --verbose exclude each other", command: name) }
        let preferences = LinkPreferences(acquiresSockets: !arguments.flag("no-acquire"))
        let resolved = try await target.requireUniqueName(adapter: adapter, context: context, action: "switch")
        // The device's lock (and its bootloader's, once connected to), as an upload takes them.
        let locks = context.locksDevices ? DeviceLocks(environment: context.environment) : nil
        defer { locks?.releaseAll() }
        if let locks, let resolved { try locks.claim(resolved) }
        let session = try await context.transports.open(adapter, target.label, preferences: preferences)
        let asked = Mutex(false)
        let application = Mutex<DFUPeer?>(nil)
        let tracer = TransportTracer()
        let result = await switchDevice(target, session: session, locks: locks, options: options, interrupts: context.interrupts,
                                        clock: session.clock) { observation in
            if verbosity >= 2 {
                for line in tracer.lines(for: observation) { context.writeError(TerminalText.escaped("\(target.label): \(line)") + "\n") }
            } else if verbosity == 1, case .connected = observation {
                context.writeError(TerminalText.escaped("\(target.label): \(observation.traceLine)") + "\n")
            }
            if case .write(let endpoint, let bytes) = observation, Self.isSwitchRequest(bytes, to: endpoint) {
                asked.withLock { $0 = true }
            }
            if case .connected(let peer) = observation { application.withLock { $0 = $0 ?? peer } }
        }
        await session.close()
        if let failure = locks?.failure { throw failure.failure }
        if context.interrupts.isInterrupted, (try? result.get()) == nil {
            let state = asked.withLock { $0 }
                ? "it was asked to restart into its bootloader and may be waiting there"
                : "it was not switched"
            context.writeError(TerminalText.escaped("dfu: trigger interrupted; \(target.label): \(state)") + "\n")
            return .interrupted
        }
        let (peer, switched) = try result.get()
        // A bootloader at the application's own address (buttonless with bonds, Legacy) was not
        // renamed, and BlueZ may still show the application's name for it: name none.
        let sameAddress = switched && application.withLock { $0?.address } == peer.address
        let name = sameAddress ? nil : peer.name
        if sameAddress, arguments.value("alt-name") != nil, !quiet {
            context.writeError("dfu: --alt-name was not used: this bootloader keeps the application's address and is not renamed\n")
        }
        if arguments.flag("json") {
            context.writeOutput(try JSONLine.encoded(Answer(bootloader: peer.address.description, name: name, switched: switched)))
        } else {
            context.writeOutput("\(peer.address)\(name.map { " \(TerminalText.escaped($0))" } ?? "")\n")
            if !switched && !quiet { context.writeError(TerminalText.escaped("dfu: \(target.label(connectedTo: peer.address)) was already in its bootloader") + "\n") }
        }
        return .success
    }

    /// Whether `bytes` written to `endpoint` ask an application to restart into its bootloader
    /// (buttonless Enter Bootloader, 0x01, or any Legacy Control Point request).
    static func isSwitchRequest(_ bytes: [UInt8], to endpoint: DFUEndpoint) -> Bool {
        switch endpoint {
        case .buttonlessWithBonds, .buttonlessWithoutBonds, .buttonlessExperimental: bytes.first == 0x01
        case .legacyControlPoint: true
        default: false
        }
    }

    private static func switchDevice<C: Clock>(
        _ target: DeviceTarget, session: TransportSession, locks: DeviceLocks?, options: DFUOptions, interrupts: InterruptController, clock: C,
        observe: @escaping @Sendable (TransportObservation) -> Void
    ) async -> Result<(bootloader: DFUPeer, switched: Bool), any Error> where C.Duration == Duration {
        // Ctrl-C cancels the command's task, so the runner stops at its next step; no new connection is opened after it.
        let base: any DFUTransport = locks.map { LockingTransport(base: session.transport, locks: $0) } ?? session.transport
        let transport = InterruptibleTransport(base: ObservedTransport(base: base, observe: observe),
                                               interrupts: interrupts)
        let runner = DFURunner(transport: transport, clock: clock, options: options)
        do throws(DFUError) {
            return .success(try await runner.switchToBootloader(device: target.selector))
        } catch {
            return .failure(error)
        }
    }
}
