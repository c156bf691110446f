import DFUCore
import DFUSimulator
import Testing
import DFUFormats

/// The runner's SMP entry point against simulated devices: a whole update through the one loop, and the two
/// mismatches (an MCUboot plan for an nRF5 device, an nRF5 package for an SMP server) refused before anything
/// is written.
@Suite struct SMPRunnerTests {
    static let image = SimulatedMCUbootImageBuilder(version: (2, 0, 0, 0)).image(bodySize: 30_000, seed: 11)

    static func plan() throws -> SMPUploadPlan {
        let hash = try #require(try MCUbootImage(bytes: image, name: "image").imageHash)
        return SMPUploadPlan(images: [SMPUploadImage(image: 0, bytes: image, imageHash: hash)])
    }

    static func zephyrDevice() -> SimulatedPeripheral {
        SimulatedPeripheral(profile: .nrf52840Zephyr(address: Fixtures.address, configuration: ZephyrTargetConfiguration()))
    }

    @Test func theRunnerSendsATestedImageAndConfirmsItAfterTheSwap() async throws {
        let transport = SimulatedTransport(peripherals: [Self.zephyrDevice()])
        let progress = ProgressLog()
        let runner = DFURunner(transport: transport, clock: transport.clock, options: Fixtures.options()) { progress.append($0) }
        let report = try await runner.update(try Self.plan(), device: .address(Fixtures.address))
        let target = try #require(transport.peripheral().firmware as? SimulatedZephyrTarget)
        #expect(target.slots[0].primary == Self.image)
        #expect(target.slots[0].nextBoot == .none)
        #expect(target.resets == 1)
        #expect(report.bytesSent == Self.image.count)
        #expect(report.partsSent == [.application])
        // Uploading progress rises to the image's size and the update ends completed.
        let uploaded = progress.all.filter { $0.state == .uploading }.map(\.bytesSent)
        #expect(uploaded == uploaded.sorted())
        #expect(uploaded.last == Self.image.count)
        #expect(progress.all.last?.state == .completed)
    }

    @Test func anMCUbootPlanForAnNRF5BootloaderIsRefusedBeforeAnyWrite() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()])
        let before = transport.peripheral().storage
        let runner = DFURunner(transport: transport, clock: transport.clock, options: Fixtures.options())
        // The device waits in its bootloader, at the address + 1.
        let selector = DFUDeviceSelector(addresses: [Fixtures.address, Fixtures.address.bootloaderAddress])
        let error = await #expect(throws: DFUError.self) { try await runner.update(try Self.plan(), device: selector) }
        guard case .firmwareMismatch(let reason)? = error else {
            Issue.record("expected a firmware mismatch, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("nRF5 DFU bootloader"), "\(reason)")
        #expect(transport.peripheral().storage.application == before.application)
        #expect(transport.peripheral().inBootloader)
    }

    @Test func anNRF5PackageForAnSMPServerIsRefused() async throws {
        let transport = SimulatedTransport(peripherals: [Self.zephyrDevice()])
        let result = await Fixtures.run(DFUPackage(format: .secure, parts: [Fixtures.securePart()]), on: transport)
        guard case .failure(.firmwareMismatch(let reason)) = result else {
            Issue.record("expected the device to be refused, got \(result)")
            return
        }
        #expect(reason.contains("SMP"))
        let target = try #require(transport.peripheral().firmware as? SimulatedZephyrTarget)
        #expect(target.resets == 0)
    }
}
