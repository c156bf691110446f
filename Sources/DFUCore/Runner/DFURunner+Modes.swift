import DFUFormats
// How the runner tells application from bootloader mode, and what it carries through an update.

extension DFURunner {
    // MARK: - Modes

    struct UpdateContext {
        var start: RunnerClock.Instant
        var totalParts: Int
        var names: DFUAlternativeNameGenerator
        var partNumber = 1
        var report = DFUUpdateReport()
        /// The speed of the part being sent.
        var meter = TransferMeter()
        /// The size of the part being sent.
        var partBytes = 0
        /// How many times the flash pacer was slowed down after losses (kept across connections).
        var pacingSlowdowns = 0
        /// When the whole update must be over (``DFUOptions/deadline``), and how long that was.
        var deadline: RunnerClock.Instant?
        var deadlineDuration: Duration = .zero
        /// SMP: the size of each image of the plan (each one part), the index of the image being uploaded (or last
        /// uploaded) and how many of its bytes the device holds, and where each image stands (nil until known).
        var smpImageSizes: [Int] = []
        var smpPart = 0
        var smpPartBytes = 0
        var smpImages: [SMPImageReport]?
        /// Secure, after an interrupt: whether the bootloader accepted Abort (nil: no Abort was sent).
        var abortAccepted: Bool?

        /// Sets the deadline for `bytes` firmware bytes from the start.
        mutating func setDeadline(_ deadline: DFUDeadline, bytes: Int) {
            deadlineDuration = deadline.duration(forBytes: bytes)
            self.deadline = start.advanced(by: deadlineDuration)
        }
    }

    func detectMode(_ peer: DFUPeer) async throws(DFUError) -> DFUDeviceMode {
        var version: LegacyDFUVersion?
        if DFUDeviceClassification.needsLegacyVersion(peer) {
            let bytes: [UInt8]
            do { bytes = try await transport.read(.legacyVersion) } catch { throw wrap(error, step: .readingVersion) }
            version = LegacyDFUVersion(bytes: bytes)
            if version == nil { throw .unexpectedResponse(step: .readingVersion, bytes: bytes) }
        }
        switch DFUDeviceClassification(peer, legacyVersion: version, forceDFU: options.forceDFU) {
        case .mode(let mode):
            return mode
        case .experimentalButtonlessOnly where options.experimentalButtonless:
            return .buttonless(.experimental)
        case .experimentalButtonlessOnly:
            throw .unsupportedDevice(reason: "\(peer.address) offers only the SDK 12 experimental buttonless service, which "
                + "anyone in range could use and is therefore off by default; allow it with --experimental-buttonless")
        case .noDFU:
            throw .unsupportedDevice(reason: "no Secure or Legacy DFU service or buttonless characteristic on \(peer.address); check the address or name")
        }
    }

    func checkFormat(_ format: PackageFormat, mode: DFUDeviceMode) throws(DFUError) {
        switch mode {
        case .secureBootloader where format == .legacy: throw .protocolMismatch(package: .legacy, device: .secure)
        case .legacyBootloader where format == .secure: throw .protocolMismatch(package: .secure, device: .legacy)
        case .smpServer:
            throw .firmwareMismatch(reason: "the device is an SMP (MCUmgr) server, which takes MCUboot images, not an nRF5 package")
        default: return
        }
    }
}
