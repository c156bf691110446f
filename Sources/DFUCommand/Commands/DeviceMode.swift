import DFUCore

/// What a device runs, as far as DFU is concerned: found by connecting and looking at its services.
enum DeviceMode: String, Sendable, Hashable, Encodable {
    case secureBootloader = "secure-bootloader"
    case buttonlessWithBonds = "application-buttonless-with-bonds"
    case buttonlessWithoutBonds = "application-buttonless"
    case experimentalButtonless = "application-experimental-buttonless"
    case legacyApplication = "legacy-application"
    case legacyBootloader = "legacy-bootloader"
    case smp = "smp"
    case noDFU = "no-dfu"

    /// The mode the core's classification gives (the one the runner acts on).
    init(_ classification: DFUDeviceClassification) {
        switch classification {
        case .mode(.secureBootloader): self = .secureBootloader
        case .mode(.buttonless(.withBonds)): self = .buttonlessWithBonds
        case .mode(.buttonless(.withoutBonds)): self = .buttonlessWithoutBonds
        case .mode(.buttonless(.experimental)), .experimentalButtonlessOnly: self = .experimentalButtonless
        case .mode(.legacyApplication): self = .legacyApplication
        case .mode(.legacyBootloader): self = .legacyBootloader
        case .mode(.smpServer): self = .smp
        case .noDFU: self = .noDFU
        }
    }

    /// In words, for the table.
    var description: String {
        switch self {
        case .secureBootloader: "Secure DFU bootloader"
        case .buttonlessWithBonds: "application, buttonless (with bonds)"
        case .buttonlessWithoutBonds: "application, buttonless"
        case .experimentalButtonless: "application, experimental buttonless (SDK 12)"
        case .legacyApplication: "Legacy application (buttonless jump)"
        case .legacyBootloader: "Legacy DFU bootloader"
        case .smp: "SMP server (nRF Connect SDK, MCUboot)"
        case .noDFU: "no DFU service"
        }
    }

    /// Connects to `address` through the context's transports, reads what is needed, disconnects.
    static func probe(_ address: DFUDeviceAddress, adapter: String?, timeout: Duration, context: CommandContext) async throws -> DeviceMode {
        let session = try await context.transports.open(adapter, address.description)
        let transport = session.transport
        let peer: DFUPeer
        do {
            peer = try await transport.connect(DFUConnectParameters(
                selector: .address(address), scanTimeout: timeout, connectTimeout: timeout, uuids: DFUServiceUUIDs()))
        } catch {
            await session.close()
            throw error
        }
        var version: LegacyDFUVersion?
        if DFUDeviceClassification.needsLegacyVersion(peer) {
            version = (try? await transport.read(.legacyVersion)).flatMap { LegacyDFUVersion(bytes: $0) }
        }
        await transport.disconnect()
        await session.close()
        return DeviceMode(DFUDeviceClassification(peer, legacyVersion: version))
    }
}
