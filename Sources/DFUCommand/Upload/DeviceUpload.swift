import DFUCore
import Synchronization
import DFUFormats

/// Updates one device: opens its link through the context's ``TransportProvider``, runs the
/// engine, turns its progress into ``UploadEvent``s, and says how it ended.
struct DeviceUpload: Sendable {
    /// The device.
    let target: DeviceTarget
    /// The adapter to open the link on (nil = default).
    let adapter: String?
    /// What to send: one firmware, or an nRF5 package and an MCUboot plan, tried in turn: the engine refuses
    /// the one the device does not take before anything is written (``DFUError/firmwareMismatch(reason:)``).
    let firmware: [UploadFirmware]
    /// The options.
    let settings: UploadSettings
    /// Where the links come from and where interrupts arrive.
    let context: CommandContext
    /// Where events go.
    let renderer: any UploadRenderer

    /// Runs the update; never throws: every failure is an outcome (and a `finished` event).
    func run() async -> DeviceOutcome {
        let outcome = await runUnreported()
        renderer.handle(.finished(outcome))
        return outcome
    }

    private func runUnreported() async -> DeviceOutcome {
        let device = target.label
        if Task.isCancelled || context.interrupts.isInterrupted {
            return DeviceOutcome(device: device, result: .interrupted(Self.notStarted))
        }
        let resolved: DFUDeviceAddress?
        do throws(AmbiguousNameError) {
            resolved = try await target.requireUniqueName(adapter: adapter, context: context, action: "update")
        } catch {
            return DeviceOutcome(device: device, result: .failed(.usage, error.description))
        }
        // Never two writers: a device another dfu process is updating is left alone. Locked by address
        // (the one given, or the one the name was heard at) before connecting; any other address the
        // engine connects to (the name's device when the scan missed it, the bootloader at the address + 1)
        // is locked by the transport before anything is written to it.
        let locks = context.locksDevices ? DeviceLocks(environment: context.environment) : nil
        defer { locks?.releaseAll() }
        if let locks, let resolved {
            do throws(DeviceLock.Failure) {
                try locks.claim(resolved)
            } catch {
                return DeviceOutcome(device: device, result: Self.lockRefusal(error))
            }
        }
        let session: TransportSession
        do {
            session = try await context.transports.open(adapter, device, preferences: settings.link)
        } catch {
            let (code, message) = ErrorReport.classify(error)
            return DeviceOutcome(device: device, result: .failed(code, message))
        }
        let connected = Mutex<String?>(nil)
        let base: any DFUTransport = locks.map { LockingTransport(base: session.transport, locks: $0) } ?? session.transport
        // `images` lives inside the closure and its list comes out with the result: Swift 6.0.3 (Debian 13's
        // swiftlang, make deb-arm64) takes a closure's capture of a noncopyable Mutex for a consume (and
        // refuses any later use of it) or for a copy.
        let (result, listedImages) = await withTaskExecutorPreference(session.executor) {
            let images = Mutex<(images: [SMPImageReport], next: String?)?>(nil)
            let result = await drive(clock: session.clock, base: base, images: images) { address in
                connected.withLock { $0 = $0 ?? address.description }
            }
            return (result, images.withLock { $0 })
        }
        await session.close()
        // A lock the transport could not take stopped the engine (as an interrupt would): say why.
        let updated = if case .updated = result { true } else { false }
        if let (address, failure) = locks?.failure, !updated {
            var refusal = Self.lockRefusal(failure)
            if case .busy(let pid) = failure, address != resolved, let first = connected.withLock({ $0 }), first != address.description {
                // Another address than the device's own: its bootloader (address + 1) after the jump.
                let holder = pid.map { "another dfu process (pid \($0))" } ?? "another dfu process"
                refusal = .failed(.busy, "busy: \(holder) is updating \(address), where this device went on to; "
                    + "nothing was sent to it, try again when it has finished")
            }
            return DeviceOutcome(device: device, result: refusal, address: connected.withLock { $0 })
        }
        var outcome = DeviceOutcome(device: device, result: result, address: connected.withLock { $0 })
        if case .updated(let report) = result, !report.smpImages.isEmpty {
            outcome.smpImages = report.smpImages
            outcome.smpNext = SMPImageText.next(report.smpImages, device: device)
        } else if let (smpImages, next) = listedImages {
            outcome.smpImages = smpImages
            outcome.smpNext = next
        }
        return outcome
    }

    /// The outcome of a device whose lock could not be taken: busy (75), or an unsafe lock folder or file (78).
    static func lockRefusal(_ failure: DeviceLock.Failure) -> DeviceOutcome.Result {
        switch failure {
        case .busy: .failed(.busy, failure.description)
        case .unsafe: .failed(.unsafeSetup, failure.description)
        }
    }

    private func drive<C: Clock>(clock: C, base: any DFUTransport, images: borrowing Mutex<(images: [SMPImageReport], next: String?)?>,
                                 connected: @escaping @Sendable (DFUDeviceAddress) -> Void) async -> DeviceOutcome.Result
        where C.Duration == Duration {
        let device = target.label
        let renderer = renderer
        let verbosity = settings.verbosity
        if verbosity >= 1 {
            renderer.handle(.log(device, .info, "\(adapter.map { "on \($0), " } ?? "")looking for \(target.selector); " + describeTransfer()))
        }
        let tracer = TransportTracer()
        let observed = ObservedTransport(base: base) { observation in
            if case .connected(let peer) = observation { connected(peer.address) }
            if verbosity >= 2 {
                for line in tracer.lines(for: observation) { renderer.handle(.log(device, .trace, line)) }
            } else if verbosity == 1, case .connected = observation {
                renderer.handle(.log(device, .info, observation.traceLine))
            }
        }
        // After an interrupt no new connection is opened; the machine's goodbye passes through the observer (and the
        // -vv trace).
        let transport = InterruptibleTransport(base: observed, interrupts: context.interrupts)
        let start = clock.now
        let interrupts = context.interrupts
        let lastActive = Mutex<DFUProgress?>(nil)
        // What the machine learnt of its Abort (the aborted progress carries it).
        let abortAccepted = Mutex(false)
        let runner = DFURunner(transport: transport, clock: clock, options: settings.options) { progress in
            if progress.state == .aborted, let accepted = progress.abortAccepted { abortAccepted.withLock { $0 = accepted } }
            let elapsed = start.duration(to: clock.now)
            // After an interrupt the engine only winds down: keep where it was for the message.
            let interrupted = interrupts.isInterrupted
            let previous: DFUProgress? = lastActive.withLock { last in
                defer { if progress.state != .aborted && !interrupted { last = progress } }
                return last
            }
            if previous?.state != progress.state || previous?.part != progress.part {
                renderer.handle(.state(device, progress))
            }
            if verbosity >= 1, let framing = progress.smpFraming, framing != previous?.smpFraming {
                renderer.handle(.log(device, .info, framing.description))
            }
            if verbosity >= 1, progress.state == .uploading, progress.transferStart > 0,
               previous?.state != .uploading || previous?.transferStart != progress.transferStart {
                renderer.handle(.log(device, .info, "resuming part \(progress.part) at byte \(progress.transferStart)"))
            }
            if progress.state == .uploading || progress.state == .validating {
                renderer.handle(.progress(device, progress, elapsed: elapsed))
            }
        }
        var index = 0
        do throws(DFUError) {
            while true {
                do throws(DFUError) {
                    switch firmware[index] {
                    case .nrf5(let package): return .updated(try await runner.update(package, device: target.selector))
                    case .smp(let plan): return .updated(try await runner.update(plan, device: target.selector))
                    }
                } catch .firmwareMismatch(let reason) where index + 1 < firmware.count && !context.interrupts.isInterrupted {
                    // Nothing was written: the other file is for this device.
                    if verbosity >= 1 { renderer.handle(.log(device, .info, "\(reason); sending the other file")) }
                    index += 1
                    lastActive.withLock { $0 = nil }
                }
            }
        } catch {
            if case .aborted = error {
                let last = lastActive.withLock { $0 }
                images.withLock { $0 = last?.smpImages.map { ($0, Self.smpNext(last, device: device)) } }
                return .interrupted(whereLeft(lastActive.withLock { $0 }, firmware: firmware[index], sentAbort: abortAccepted.withLock { $0 }))
            }
            if context.interrupts.isInterrupted {
                let last = lastActive.withLock { $0 }
                images.withLock { $0 = last?.smpImages.map { ($0, Self.smpNext(last, device: device)) } }
                return .interrupted(whereLeft(lastActive.withLock { $0 }, firmware: firmware[index], sentAbort: abortAccepted.withLock { $0 }))
            }
            let (code, message) = ErrorReport.classify(error)
            return .failed(code, message)
        }
    }

    /// The message for a device whose update never began.
    static let notStarted = "interrupted before the update began; the device was not changed"

    /// Where an interrupted device was left, from its last progress, and what running `dfu` again
    /// will do: only what the engine does (it skips a system part the bootloader already holds by
    /// rejecting its init packet, and resumes an object only when the bootloader kept it).
    func whereLeft(_ progress: DFUProgress?, firmware: UploadFirmware, sentAbort: Bool) -> String {
        guard let progress, progress.state != .connecting || progress.part > 1
            || SMPImageText.changedBeyondUpload(progress.smpImages) else { return Self.notStarted }
        guard case .nrf5(let package) = firmware else { return Self.whereLeftSMP(progress, device: target.label) }
        var text = "interrupted in part \(progress.part)/\(progress.totalParts) while \(ProgressText.state(progress.state))"
        if progress.state == .uploading || progress.state == .validating {
            text += " at \(progress.percent)% (\(progress.bytesSent) of \(progress.totalBytes) bytes)"
        }
        let inScope = package.parts.filter { settings.options.scope.includes($0.kind) }
        let current = progress.part - 1 < inScope.count ? inScope[progress.part - 1].kind : nil
        if progress.part > 1, current == .application, settings.options.scope == .all {
            text += "; the parts before it are installed"
            text += sentAbort ? "; the bootloader accepted Abort and drops what it had of the application" : ""
            return text + "; to send only the application, run the same command with --scope application"
        }
        if sentAbort {
            return text + "; the bootloader accepted Abort: the device resets and keeps its previous firmware if it is still valid, "
                + "otherwise it waits in its bootloader; the same command again starts this part over"
        }
        if package.format == .legacy {
            // The machine sent Reset (06): a Legacy bootloader abandons the transfer, resets and, its application
            // invalidated at Start DFU, comes back in DFU mode; Legacy DFU cannot resume.
            return text + "; the Legacy bootloader was told to abandon the transfer (Reset) and waits in DFU mode; "
                + "the same command again sends this part from the start"
        }
        return text + "; the device stays in its bootloader with what it received; "
            + "the same command again resumes where the bootloader stopped"
    }

    /// Where an interrupted SMP upload was left: SMP has no abort, so the device keeps what it received;
    /// the same command again reads the image list and the upload offset and carries on from there
    /// (the upload's `sha` names the file, so the server resumes rather than starts over). Once an image was
    /// marked, reset into or confirmed, it says where each image stands and the command that takes the device on
    /// (`device` as named on the command line).
    static func whereLeftSMP(_ progress: DFUProgress, device: String) -> String {
        var text = "interrupted while \(ProgressText.state(progress.state))"
        if let images = progress.smpImages, SMPImageText.changedBeyondUpload(images) {
            if Self.resetUnseen(progress) {
                // The reset was asked for, its outcome not seen: the device may or may not have swapped.
                let reset = images.map { image in
                    var image = image
                    if image.state == .markedTest { image.state = .resetTest }
                    if image.state == .markedConfirm { image.state = .resetConfirm }
                    return image
                }
                text += "; the device was asked to reset and may not have done so (\(Self.smpNext(progress, device: device) ?? "") "
                    + "shows which image runs); if it did, " + SMPImageText.describe(reset)
                if let next = SMPImageText.next(reset, device: device) { text += "; next: \(next)" }
                return text
            }
            text += "; " + SMPImageText.describe(images)
            if let next = SMPImageText.next(images, device: device) { text += "; next: \(next)" }
            return text
        }
        if progress.state == .uploading {
            text += " at \(progress.percent)% (\(progress.bytesSent) of \(progress.totalBytes) bytes)"
            return text + "; SMP has no abort: the device keeps what it received and runs its current firmware; "
                + "the same command again resumes from the device's offset"
        }
        return text + "; the device runs its current firmware; the same command again reads its image list and carries on "
            + "from where it is (nothing already on the device is sent again)"
    }

    /// Whether the device was interrupted after being asked to reset with images marked, before its answer or its
    /// dropped link said it did.
    static func resetUnseen(_ progress: DFUProgress) -> Bool {
        progress.state == .resetting
            && progress.smpImages?.contains { $0.state == .markedTest || $0.state == .markedConfirm } == true
    }

    /// The command that takes an SMP device on from where an interrupt left it (nil: nothing left, or not SMP): while
    /// a reset's outcome is unseen, `dfu images`, which shows whether the images swapped (a second reset would revert
    /// an image on test).
    static func smpNext(_ progress: DFUProgress?, device: String) -> String? {
        guard let progress, let images = progress.smpImages else { return nil }
        if resetUnseen(progress) { return "dfu images -d \(device)" }
        return SMPImageText.next(images, device: device)
    }

    /// What shapes this transfer, for `-v`.
    func describeTransfer() -> String {
        var text = ""
        for item in firmware {
            if !text.isEmpty { text += "; or " }
            switch item {
            case .nrf5: text += Self.describe(settings.options)
            case .smp(let plan): text += Self.describe(plan, options: settings.options)
            }
        }
        return text
    }

    /// What shapes an SMP upload, for `-v`.
    static func describe(_ plan: SMPUploadPlan, options: DFUOptions) -> String {
        var text = "SMP upload of " + plan.images.map { "image \($0.image) (\($0.bytes.count) bytes)" }.joined(separator: ", ")
        text += ", then \(plan.ending.rawValue)"
        text += ", frames of " + (plan.frameSize.map { "at most \($0) bytes" } ?? "the device's buf_size if it reassembles, else one write each")
        text += ", " + (plan.window.map { "\($0) in flight" } ?? "the device's buf_count - 2 in flight")
        text += ", scan timeout \(ProgressText.seconds(options.scanTimeout)), connect timeout \(ProgressText.seconds(options.connectTimeout))"
        return text + ", \(options.reconnectAttempts) reconnections"
    }

    /// The options that shape the transfer, for `-v`.
    static func describe(_ options: DFUOptions) -> String {
        var text = "PRN \(options.packetReceiptNotifications), scope \(options.scope.rawValue)"
        text += ", scan timeout \(ProgressText.seconds(options.scanTimeout)), connect timeout \(ProgressText.seconds(options.connectTimeout))"
        text += ", \(options.reconnectAttempts) reconnections, resume \(options.resume ? "on" : "off")"
        if let cap = options.packetSizeCap { text += ", packets of at most \(cap) bytes" }
        let firstDelay = options.effectiveFirstObjectDelay
        text += firstDelay > .zero || options.firstObjectDelayIsExplicit
            ? ", first object delay \(ProgressText.seconds(firstDelay))"
            : ", first object paced to the flash (no fixed delay)"
        if options.objectDelay > .zero { text += ", object delay \(ProgressText.seconds(options.objectDelay))" }
        return text
    }
}
