import DFUCore
import Testing

/// The one classification of a connected device, which the runner acts on and `dfu scan` shows.
@Suite struct DeviceClassificationTests {
    static func peer(_ endpoints: Set<DFUEndpoint>, services: Int) -> DFUPeer {
        DFUPeer(address: DFUDeviceAddress("C0:FF:EE:00:12:36")!, name: "device", endpoints: endpoints, serviceCount: services,
                maximumWriteLength: 20, isBonded: false)
    }

    static let legacy: Set<DFUEndpoint> = [.legacyControlPoint, .legacyPacket]

    @Test func aSecureBootloaderNeedsItsControlPointAndItsPacketCharacteristic() {
        #expect(DFUDeviceClassification(Self.peer([.secureControlPoint, .securePacket], services: 1), legacyVersion: nil)
                == .mode(.secureBootloader))
        #expect(DFUDeviceClassification(Self.peer([.secureControlPoint], services: 1), legacyVersion: nil) == .noDFU)
    }

    @Test func theLegacyDFUVersionDecidesApplicationOrBootloader() {
        let peer = Self.peer(Self.legacy.union([.legacyVersion]), services: 3)
        #expect(DFUDeviceClassification.needsLegacyVersion(peer))
        // 0.1: an application that jumps on Start DFU; 0.5 and later: a bootloader, whatever else it has.
        #expect(DFUDeviceClassification(peer, legacyVersion: .applicationWithButtonlessJump) == .mode(.legacyApplication))
        let bootloader = LegacyDFUVersion(major: 0, minor: 8)
        #expect(DFUDeviceClassification(peer, legacyVersion: bootloader) == .mode(.legacyBootloader(bootloader)))
    }

    /// SDK 6.1 and older have no DFU Version characteristic: the Legacy DFU service alone is the bootloader, beside
    /// other services an application, unless --force-dfu says it is in its bootloader.
    @Test func withoutAVersionTheOtherServicesMakeItAnApplication() {
        let alone = Self.peer(Self.legacy, services: 1)
        let beside = Self.peer(Self.legacy, services: 3)
        #expect(!DFUDeviceClassification.needsLegacyVersion(beside))
        #expect(DFUDeviceClassification(alone, legacyVersion: nil) == .mode(.legacyBootloader(nil)))
        #expect(DFUDeviceClassification(beside, legacyVersion: nil) == .mode(.legacyApplication))
        #expect(DFUDeviceClassification(beside, legacyVersion: nil, forceDFU: true) == .mode(.legacyBootloader(nil)))
    }

    @Test func buttonlessCharacteristicsComeBeforeTheLegacyServiceAndSMP() {
        let both = Self.peer(Self.legacy.union([.legacyVersion, .buttonlessWithoutBonds, .smp]), services: 4)
        #expect(DFUDeviceClassification(both, legacyVersion: nil) == .mode(.buttonless(.withoutBonds)))
        #expect(!DFUDeviceClassification.needsLegacyVersion(both))
        #expect(DFUDeviceClassification(Self.peer([.smp], services: 2), legacyVersion: nil) == .mode(.smpServer))
    }

    @Test func theExperimentalButtonlessServiceAloneIsToldApart() {
        #expect(DFUDeviceClassification(Self.peer([.buttonlessExperimental], services: 2), legacyVersion: nil)
                == .experimentalButtonlessOnly)
    }
}
