import BlueZ
import BlueZTransport
import DBus
import DFUCore
import DFUCrypto
import DFUSimStandIn
import DFUSimulator
import Glibc
import TestSupport
import DFUFormats

/// Builders for the live tests: devices, packages, a transport on bluetoothd's stand-in, runner options.
enum LiveRig {
    /// The application's address.
    static let address: DFUDeviceAddress = {
        guard let address = DFUDeviceAddress("C0:FF:EE:00:12:FF") else { preconditionFailure("a literal address") }
        return address
    }()

    /// A Secure part with a valid init packet.
    static func securePart(_ kind: PartKind = .application, size: Int = 12_000, seed: UInt32 = 3,
                           softdeviceRequirements: [UInt32] = [0x0100], softdeviceSize: UInt32? = nil) -> FirmwarePart {
        let image = TestFirmware.image(size: size, seed: seed)
        let command = SecureInitCommand(
            kind: kind, image: image, firmwareVersion: 2, softdeviceRequirements: softdeviceRequirements,
            softdeviceSize: softdeviceSize, hash: Array(SHA256.digest(image).reversed()))
        return FirmwarePart(kind: kind, image: image, initPacket: command.packet, softdeviceSize: softdeviceSize,
                            bootloaderSize: softdeviceSize.map { UInt32(size) - $0 })
    }

    /// A Secure application package.
    static func securePackage(size: Int = 12_000, seed: UInt32 = 3) -> DFUPackage {
        DFUPackage(format: .secure, parts: [securePart(size: size, seed: seed)])
    }

    /// A Legacy application package (DFU version 0.5 init packet).
    static func legacyPackage(size: Int = 8_000) -> DFUPackage {
        let image = TestFirmware.image(size: size, seed: 9)
        return DFUPackage(format: .legacy, parts: [
            FirmwarePart(kind: .application, image: image, initPacket: LegacyInitPacketBuilder(image: image).bytes)
        ])
    }

    /// A device spec for the stand-in: `profile` started as `kind` starts, heard at -50 dBm, Nordic's UUIDs.
    static func spec(_ kind: SimulatedDeviceKind, _ profile: SimulatedDeviceProfile, storage: SimulatedStorage = SimulatedStorage(),
                     pairing: DevicePairing = DevicePairing()) -> SimulatedDeviceSpec {
        SimulatedDeviceSpec(
            kind: kind, profile: profile, storage: storage, rssi: -50, indicatesServiceChanged: false, connectDelay: .zero,
            uuids: DFUServiceUUIDs(), pairing: pairing)
    }

    /// A device with a Secure bootloader, in DFU mode unless `buttonless` gives it an application.
    static func secureDevice(buttonless: ButtonlessVariant? = nil, storage: SimulatedStorage = SimulatedStorage())
        -> SimulatedDeviceSpec
    {
        var configuration = SecureBootloaderConfiguration()
        configuration.requiresBonds = buttonless == .withBonds
        var application = SimulatedDeviceProfile.Application.plain
        if let buttonless { application = .buttonless(SimulatedButtonlessApplication(variant: buttonless)) }
        let profile = SimulatedDeviceProfile(
            address: address, bootloader: .secure(configuration), application: application, isBonded: buttonless == .withBonds)
        let kind: SimulatedDeviceKind =
            switch buttonless {
            case nil: .secure
            case .withoutBonds: .buttonless
            case .withBonds: .buttonlessBonded
            case .experimental: .buttonlessExperimental
            }
        return spec(kind, profile, storage: storage)
    }

    /// A device with a Legacy bootloader and a Legacy application with the buttonless jump (same address).
    static func legacyDevice() -> SimulatedDeviceSpec {
        let profile = SimulatedDeviceProfile(
            address: address, bootloader: .legacy(LegacyBootloaderConfiguration()), application: .legacy(SimulatedLegacyApplication()))
        return spec(.legacyApp, profile, storage: SimulatedStorage(softdeviceID: 0x0080))
    }

    /// An nRF Connect SDK device (Zephyr's SMP server above MCUboot) at ``address``, its SMP characteristic open, or
    /// needing the pairing `pairing` says. Frames are handled at once.
    static func zephyrDevice(pairing: DevicePairing = DevicePairing()) -> SimulatedDeviceSpec {
        var configuration = ZephyrTargetConfiguration()
        configuration.requiresEncryption = pairing.security != .none
        configuration.processingPerFrame = .zero
        configuration.trailerWrite = .zero
        configuration.resetDelay = .milliseconds(50)
        return spec(pairing.security == .none ? .smp : .smpAuth, .nrf52840Zephyr(address: address, configuration: configuration),
                    pairing: pairing)
    }

    /// A signed MCUboot image of version 2.0.0 with a body of `size` bytes.
    static func mcubootImage(size: Int = 20_000, seed: UInt8 = 11) -> [UInt8] {
        SimulatedMCUbootImageBuilder(version: (2, 0, 0, 0)).image(bodySize: size, seed: seed)
    }

    /// The plan for uploading `image` to image 0, tested, reset, then confirmed.
    static func smpPlan(_ image: [UInt8]) throws -> SMPUploadPlan {
        guard let hash = try MCUbootImage(bytes: image, name: "image").imageHash else {
            throw DFUSimServer.ServerError("the test image has no hash")
        }
        return SMPUploadPlan(images: [SMPUploadImage(image: 0, bytes: image, imageHash: hash)])
    }

    /// Uploads `plan` to the SMP server at ``address`` over `transport` on the wall clock.
    static func update(_ plan: SMPUploadPlan, over transport: BlueZTransport, options: DFUOptions = options())
        async -> Result<DFUUpdateReport, DFUError>
    {
        let runner = DFURunner(transport: transport, clock: ContinuousClock(), options: options)
        do {
            return .success(try await runner.update(plan, device: .address(address)))
        } catch {
            return .failure(error)
        }
    }

    /// Runner options for real time on a local bus: short timeouts, no first-object delay.
    static func options() -> DFUOptions {
        var options = DFUOptions()
        options.scanTimeout = .seconds(3)
        options.connectTimeout = .seconds(3)
        options.responseTimeout = .seconds(3)
        options.firstObjectDelay = .zero
        options.nameSeed = 7
        return options
    }

    /// Runs `body` with a served stand-in for `device` and a transport on it (its settings made by `configure`);
    /// both are stopped afterwards.
    static func withTransport<Result>(
        _ device: SimulatedDeviceSpec, options: StandInRig.Options = StandInRig.Options(),
        configure: (BlueZTransport) async -> Void = { _ in },
        _ body: (StandInRig, BlueZTransport) async throws -> Result
    ) async throws -> Result {
        try await StandInRig.with([device], options: options) { rig in
            let transport = try await BlueZTransport.open(busAddress: rig.address)
            await configure(transport)
            do {
                let result = try await body(rig, transport)
                await transport.close()
                return result
            } catch {
                await transport.close()
                throw error
            }
        }
    }

    /// Updates the device at `address` with `package` over `transport` on the wall clock.
    static func update(_ package: DFUPackage, over transport: BlueZTransport, options: DFUOptions = options(),
                       device: DFUDeviceSelector = .address(address)) async -> Result<DFUUpdateReport, DFUError> {
        let start = ContinuousClock.now
        let log = ProgressLog()
        let runner = DFURunner(transport: transport, clock: ContinuousClock(), options: options) { progress in
            log.append("\(ContinuousClock.now - start) \(progress.state) part \(progress.part)")
        }
        let result: Result<DFUUpdateReport, DFUError>
        do {
            result = .success(try await runner.update(package, device: device))
        } catch {
            result = .failure(error)
        }
        if ProcessEnvironmentFlag.traceSlowRuns, ContinuousClock.now - start > .seconds(1) {
            print("slow run:\n" + log.lines.joined(separator: "\n"))
        }
        return result
    }
}

