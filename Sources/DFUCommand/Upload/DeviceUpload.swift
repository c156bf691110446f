import DFUCore
import Synchronization

/// Updates one device: opens its link through the context's ``TransportProvider``, runs the
/// engine, turns its progress into ``UploadEvent``s, and says how it ended.
struct DeviceUpload: Sendable {
    /// The device.
    let target: DeviceTarget
    /// The adapter to open the link on (nil = default).
    let adapter: String?
    /// What to send.
    let package: DFUPackage
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
        let session: TransportSession
        do {
            session = try await context.transports.open(adapter, device, preferences: settings.link)
        } catch {
            let (code, message) = ErrorReport.classify(error)
            return DeviceOutcome(device: device, result: .failed(code, message))
        }
        let result = await drive(clock: session.clock, base: session.transport)
        await session.close()
        return DeviceOutcome(device: device, result: result)
    }

    private func drive<C: Clock>(clock: C, base: any DFUTransport) async -> DeviceOutcome.Result where C.Duration == Duration {
        let device = target.label
        let renderer = renderer
        let verbosity = settings.verbosity
        let notFound = Mutex(false)
        if verbosity >= 1 {
            renderer.handle(.log(device, .info, "\(adapter.map { "on \($0), " } ?? "")looking for \(target.selector); " + Self.describe(settings.options)))
        }
        let observed = ObservedTransport(base: base) { observation in
            if case .connectFailed(.deviceNotFound) = observation { notFound.withLock { $0 = true } }
            if verbosity >= 2 {
                renderer.handle(.log(device, .trace, observation.traceLine))
            } else if verbosity == 1, case .connected = observation {
                renderer.handle(.log(device, .info, observation.traceLine))
            }
        }
        // Around the observer, so the Abort it sends on an interrupt passes through it (and the -vv trace).
        let transport = InterruptibleTransport(base: observed, interrupts: context.interrupts)
        let start = clock.now
        let interrupts = context.interrupts
        let lastActive = Mutex<DFUProgress?>(nil)
        let runner = DFURunner(transport: transport, clock: clock, options: settings.options) { progress in
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
            if progress.state == .uploading || progress.state == .validating {
                renderer.handle(.progress(device, progress, elapsed: elapsed))
            }
        }
        do throws(DFUError) {
            return .updated(try await runner.update(package, device: target.selector))
        } catch {
            if case .aborted = error { return .interrupted(Self.whereLeft(lastActive.withLock { $0 })) }
            if context.interrupts.isInterrupted { return .interrupted(Self.whereLeft(lastActive.withLock { $0 })) }
            var reported: any Error = error
            if case .unsupportedDevice = error, notFound.withLock({ $0 }) {
                reported = DeviceNotFoundError(selector: target.selector, scanTimeout: settings.options.scanTimeout)
            }
            let (code, message) = ErrorReport.classify(reported)
            return .failed(code, message)
        }
    }

    /// The message for a device whose update never began.
    static let notStarted = "interrupted before the update began; the device was not changed"

    /// Where an interrupted device was left, from its last progress.
    static func whereLeft(_ progress: DFUProgress?) -> String {
        guard let progress, progress.state != .connecting || progress.part > 1 else { return notStarted }
        var text = "interrupted in part \(progress.part)/\(progress.totalParts) while \(ProgressText.state(progress.state))"
        if progress.state == .uploading || progress.state == .validating {
            text += " at \(progress.percent)% (\(progress.bytesSent) of \(progress.totalBytes) bytes)"
        }
        return text + "; the device stays in its bootloader; run the same command again to resume"
    }

    /// The options that shape the transfer, for `-v`.
    static func describe(_ options: DFUOptions) -> String {
        var text = "PRN \(options.packetReceiptNotifications), scope \(options.scope.rawValue)"
        text += ", scan timeout \(ProgressText.seconds(options.scanTimeout)), connect timeout \(ProgressText.seconds(options.connectTimeout))"
        text += ", \(options.reconnectAttempts) reconnections, resume \(options.resume ? "on" : "off")"
        if let cap = options.packetSizeCap { text += ", packets of at most \(cap) bytes" }
        text += ", first object delay \(ProgressText.seconds(options.firstObjectDelay))"
        if options.objectDelay > .zero { text += ", object delay \(ProgressText.seconds(options.objectDelay))" }
        return text
    }
}
