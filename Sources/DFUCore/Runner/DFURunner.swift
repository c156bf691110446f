public import DFUFormats
/// Runs a whole update: connect, switch to the bootloader, send every part in scope, each in its own
/// connection, reconnecting and resuming after link losses.
///
/// The one place that does I/O: it carries out the actions of the pure state machines over any
/// ``DFUTransport``, and takes its delays and speed measurements from an injected clock.
public struct DFURunner<Transport: DFUTransport, RunnerClock: Clock>: Sendable where RunnerClock.Duration == Duration {
    /// The link to the device.
    public let transport: Transport
    /// The clock delays and speeds use (a virtual clock in tests).
    public let clock: RunnerClock
    /// The options.
    public let options: DFUOptions
    let onProgress: @Sendable (DFUProgress) -> Void

    /// Makes a runner; `onProgress` receives every progress value.
    public init(transport: Transport, clock: RunnerClock, options: DFUOptions = DFUOptions(),
                onProgress: @escaping @Sendable (DFUProgress) -> Void = { _ in }) {
        self.transport = transport
        self.clock = clock
        self.options = options
        self.onProgress = onProgress
    }

    /// Sends every part of `package` in scope to the device `device` selects.
    ///
    /// On failure the link is closed before the error is thrown.
    public func update(_ package: DFUPackage, device: DFUDeviceSelector) async throws(DFUError) -> DFUUpdateReport {
        do {
            return try await run(package, device: device)
        } catch {
            await transport.disconnect()
            throw error
        }
    }

    private func run(_ package: DFUPackage, device: DFUDeviceSelector) async throws(DFUError) -> DFUUpdateReport {
        let parts = package.parts.filter { options.scope.includes($0.kind) }
        guard let firstPart = parts.first else {
            throw .invalidPart(package.parts.first?.kind ?? .application,
                               reason: "the package has no part in the \(options.scope.rawValue) scope")
        }
        var context = UpdateContext(start: clock.now, totalParts: parts.count, names: DFUAlternativeNameGenerator(seed: options.nameSeed))
        context.setDeadline(options.deadline, bytes: parts.reduce(0) { $0 + $1.image.count })
        report(.connecting, part: 1, context: context, bytes: 0, total: firstPart.image.count)
        let selector = withBootloaderFallback(device)
        var peer = try await connect(DFUConnectParameters(
            selector: selector, scanTimeout: options.scanTimeout, connectTimeout: options.connectTimeout,
            uuids: options.uuids), step: .connecting)
        var mode = try await detectMode(peer, selectedBy: selector)
        // Found in its bootloader at the address + 1: its application has the address named.
        let applicationAddress = selector.isFallback(peer.address) ? (selector.addresses.first ?? peer.address) : peer.address
        if mode.isApplication {
            report(.enablingDFUMode, part: 1, context: context, bytes: 0, total: firstPart.image.count)
            (peer, mode) = try await enterBootloader(from: peer, mode: mode, context: &context)
        }
        var index = 0
        while index < parts.count {
            let part = parts[index]
            context.partNumber = index + 1
            try checkFormat(package.format, mode: mode)
            do {
                peer = try await upload(part, peer: peer, mode: mode, context: &context)
                context.report.partsSent.append(part.kind)
                context.report.bytesSent += part.image.count
                context.report.bytesTransferred += context.meter.bytesSent
                context.report.transferTime += context.meter.transferTime
            } catch let error where error.isInitPacketRejection && part.kind.isSystem
                && parts[(index + 1)...].contains(where: { !$0.kind.isSystem }) {
                // As Nordic's libraries do: an already-installed or too old system part is skipped.
                context.report.partsSkipped.append(part.kind)
                index += 1
                continue
            }
            index += 1
            if index < parts.count {
                report(.connecting, part: index + 1, context: context, bytes: 0, total: parts[index].image.count)
                (peer, mode) = try await findDeviceBetweenParts(bootloader: peer.address, application: applicationAddress)
                if mode.isApplication {
                    (peer, mode) = try await enterBootloader(from: peer, mode: mode, context: &context)
                }
            }
        }
        context.report.elapsed = context.start.duration(to: clock.now)
        report(.completed, part: parts.count, context: context, bytes: parts.last?.image.count ?? 0,
               total: parts.last?.image.count ?? 0)
        return context.report
    }

    // MARK: - Progress

    func report(_ state: DFUState, part: Int, context: UpdateContext, bytes: Int, total: Int) {
        // A skipped system part keeps its number: the count of parts never changes during an update.
        var progress = DFUProgress(state: state, part: part, totalParts: context.totalParts, bytesSent: bytes, totalBytes: total)
        progress.abortAccepted = context.abortAccepted
        Self.applySMPPart(to: &progress, context: context)
        onProgress(progress)
    }

    func report(_ state: DFUState, part: Int, context: inout UpdateContext, bytes: Int, total: Int) {
        context.meter.record(at: context.start.duration(to: clock.now), bytes: bytes)
        var progress = DFUProgress(state: state, part: part, totalParts: context.totalParts, bytesSent: bytes, totalBytes: total,
                                   currentSpeed: context.meter.current, averageSpeed: context.meter.average)
        progress.transferStart = context.meter.start
        progress.smpFraming = context.report.smpFraming
        Self.applySMPPart(to: &progress, context: context)
        onProgress(progress)
    }

    /// An SMP upload counts its images as parts: the progress names the image being uploaded and its bytes (the
    /// speed stays that of the whole plan), and carries where each image stands.
    static func applySMPPart(to progress: inout DFUProgress, context: UpdateContext) {
        guard context.smpPart < context.smpImageSizes.count else { return }
        let before = context.smpImageSizes.prefix(context.smpPart).reduce(0, +)
        progress.part = context.smpPart + 1
        progress.bytesSent = context.smpPartBytes
        progress.totalBytes = context.smpImageSizes[context.smpPart]
        progress.transferStart = max(0, progress.transferStart - before)
        progress.smpImages = context.smpImages
    }
}
