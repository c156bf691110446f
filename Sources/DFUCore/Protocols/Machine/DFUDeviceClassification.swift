/// What a connected device offers for DFU, judged from the endpoints its connection found and, for a Legacy
/// DFU service, its DFU Version. The one place devices are told apart: the runner picks its machine by it and
/// `dfu scan` shows it, so the two never disagree.
public enum DFUDeviceClassification: Sendable, Hashable {
    /// A mode the runner has a machine for.
    case mode(DFUDeviceMode)
    /// Only the SDK 12 experimental buttonless service, which anyone in range could use: `dfu` drives it only when
    /// allowed (`--experimental-buttonless`).
    case experimentalButtonlessOnly
    /// No DFU service or characteristic `dfu` knows.
    case noDFU

    /// Classifies `peer`. `legacyVersion` is its Legacy DFU Version when `peer` has the characteristic and it was
    /// read; without the characteristic (SDK 6.1 and older) a Legacy DFU service means the bootloader when it is the
    /// device's only service, and an application beside others, unless `forceDFU` says the device is in its
    /// bootloader. The order follows which service decides: a Secure bootloader's pair first, then the buttonless
    /// characteristics, the Legacy service, SMP, and the experimental buttonless service last.
    public init(_ peer: DFUPeer, legacyVersion: LegacyDFUVersion?, forceDFU: Bool = false) {
        let endpoints = peer.endpoints
        if endpoints.contains(.secureControlPoint), endpoints.contains(.securePacket) {
            self = .mode(.secureBootloader)
        } else if endpoints.contains(.buttonlessWithBonds) {
            self = .mode(.buttonless(.withBonds))
        } else if endpoints.contains(.buttonlessWithoutBonds) {
            self = .mode(.buttonless(.withoutBonds))
        } else if endpoints.contains(.legacyControlPoint) {
            if let legacyVersion {
                self = .mode(legacyVersion.isApplication ? .legacyApplication : .legacyBootloader(legacyVersion))
            } else {
                self = .mode(forceDFU || peer.serviceCount <= 1 ? .legacyBootloader(nil) : .legacyApplication)
            }
        } else if endpoints.contains(.smp) {
            self = .mode(.smpServer)
        } else if endpoints.contains(.buttonlessExperimental) {
            self = .experimentalButtonlessOnly
        } else {
            self = .noDFU
        }
    }

    /// Whether classifying `peer` rests on its Legacy DFU Version: its Legacy DFU service decides, and it has the
    /// characteristic to read.
    public static func needsLegacyVersion(_ peer: DFUPeer) -> Bool {
        guard peer.endpoints.contains(.legacyVersion) else { return false }
        switch DFUDeviceClassification(peer, legacyVersion: nil) {
        case .mode(.legacyBootloader), .mode(.legacyApplication): return true
        default: return false
        }
    }
}
