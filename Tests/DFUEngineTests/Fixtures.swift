import DFUCore
import DFUCrypto
import DFUSimulator
import TestSupport
import Testing
import DFUFormats

/// Builders shared by the engine tests: synthetic images, init packets, devices and runners.
enum Fixtures {
    /// The application's address in every test.
    static let address = DFUDeviceAddress("C0:FF:EE:00:12:FF") ?? DFUDeviceAddress(bytes: [0, 0, 0, 0, 0, 0])!

    /// A Secure part with a valid init packet (SHA-256 stored byte-reversed, as nrfutil does).
    static func securePart(_ kind: PartKind = .application, size: Int = 20_000, seed: UInt32 = 1,
                           firmwareVersion: UInt32 = 2, softdeviceRequirements: [UInt32] = [0x0100],
                           hardwareVersion: UInt32 = 52, softdeviceSize: UInt32? = nil) -> FirmwarePart {
        let image = TestFirmware.image(size: size, seed: seed)
        let command = SecureInitCommand(
            kind: kind, image: image, firmwareVersion: firmwareVersion, hardwareVersion: hardwareVersion,
            softdeviceRequirements: softdeviceRequirements, softdeviceSize: softdeviceSize,
            hash: Array(SHA256.digest(image).reversed()))
        let sd = kind == .softdeviceBootloader ? softdeviceSize ?? UInt32(size / 2) : nil
        return FirmwarePart(kind: kind, image: image, initPacket: command.packet,
                            softdeviceSize: sd, bootloaderSize: sd.map { UInt32(size) - $0 })
    }

    /// A Legacy part with a DFU-version-0.5 init packet (CRC-16).
    static func legacyPart(_ kind: PartKind = .application, size: Int = 8_000, seed: UInt32 = 7,
                           softdeviceSize: UInt32? = nil, initPacket: [UInt8]? = nil) -> FirmwarePart {
        let image = TestFirmware.image(size: size, seed: seed)
        let sd = kind == .softdeviceBootloader ? softdeviceSize ?? UInt32(size / 2) : nil
        return FirmwarePart(kind: kind, image: image, initPacket: initPacket ?? LegacyInitPacketBuilder(image: image).bytes,
                            softdeviceSize: sd, bootloaderSize: sd.map { UInt32(size) - $0 })
    }

    /// A device with a Secure bootloader and a buttonless application.
    static func secureDevice(_ variant: ButtonlessVariant? = nil, configuration: SecureBootloaderConfiguration = .init(),
                             storage: SimulatedStorage = .init(), startInBootloader: Bool? = nil,
                             bonded: Bool = false, configure: (inout SimulatedButtonlessApplication) -> Void = { _ in })
        -> SimulatedPeripheral {
        var configuration = configuration
        if variant == .withBonds { configuration.requiresBonds = true }
        var application = SimulatedDeviceProfile.Application.plain
        if let variant {
            var app = SimulatedButtonlessApplication(variant: variant)
            configure(&app)
            application = .buttonless(app)
        }
        let profile = SimulatedDeviceProfile(address: address, bootloader: .secure(configuration),
                                             application: application, isBonded: bonded)
        return SimulatedPeripheral(profile: profile, storage: storage, startInBootloader: startInBootloader ?? (variant == nil))
    }

    /// A device with a Legacy bootloader, optionally with a legacy application in app mode.
    static func legacyDevice(_ configuration: LegacyBootloaderConfiguration = .init(), application: SimulatedLegacyApplication? = nil,
                             storage: SimulatedStorage = .init(softdeviceID: 0x0080)) -> SimulatedPeripheral {
        let profile = SimulatedDeviceProfile(address: address, bootloader: .legacy(configuration),
                                             application: application.map { .legacy($0) } ?? .plain)
        return SimulatedPeripheral(profile: profile, storage: storage, startInBootloader: application == nil)
    }

    /// Options with a fixed name seed.
    static func options(prn: UInt16 = DFUOptions().packetReceiptNotifications, configure: (inout DFUOptions) -> Void = { _ in }) -> DFUOptions {
        var options = DFUOptions()
        options.packetReceiptNotifications = prn
        options.nameSeed = 42
        configure(&options)
        return options
    }

    /// Expects every part installed byte-exact in the device's flash (a SoftDevice+bootloader part
    /// split at its SoftDevice size); `source` names the package in the failure.
    static func expectInstalled(
        _ parts: [FirmwarePart], in storage: SimulatedStorage, from source: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for part in parts {
            let split = Int(part.softdeviceSize)
            let matches = switch part.kind {
            case .application: storage.application == part.image
            case .softdevice: storage.softdevice == part.image
            case .bootloader: storage.bootloader == part.image
            case .softdeviceBootloader:
                storage.softdevice == Array(part.image[0..<split]) && storage.bootloader == Array(part.image[split...])
            }
            #expect(matches, "\(part.kind.rawValue)\(source.map { " of " + $0 } ?? "") not installed byte-exact",
                    sourceLocation: sourceLocation)
        }
    }

    /// Runs an update over a simulated transport against the first device's current address,
    /// and returns the report or the error.
    static func run(_ package: DFUPackage, on transport: SimulatedTransport, options: DFUOptions = options(),
                    progress: ProgressLog? = nil) async -> Result<DFUUpdateReport, DFUError> {
        let target = transport.peripheral().address
        let runner = DFURunner(transport: transport, clock: transport.clock, options: options) { value in
            progress?.append(value)
        }
        do {
            return .success(try await runner.update(package, device: .address(target)))
        } catch {
            return .failure(error)
        }
    }
}

import Synchronization

/// Collects progress values from the runner's handler.
final class ProgressLog: Sendable {
    private let values = Mutex<[DFUProgress]>([])
    func append(_ value: DFUProgress) { values.withLock { $0.append(value) } }
    var all: [DFUProgress] { values.withLock { $0 } }
}
