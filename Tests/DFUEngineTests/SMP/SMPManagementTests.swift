import DFUCore
import DFUSimulator
import Testing
import DFUFormats

/// The runner's SMP management entry points (image list, test/confirm, reset) against the simulated
/// Zephyr/MCUboot target, one request per connection through the same loop as the upload.
@Suite struct SMPManagementTests {
    static let image = SMPRunnerTests.image

    static func runner(_ transport: SimulatedTransport) -> DFURunner<SimulatedTransport, VirtualClock> {
        DFURunner(transport: transport, clock: transport.clock, options: Fixtures.options())
    }

    static func target(_ transport: SimulatedTransport) throws -> SimulatedZephyrTarget {
        try #require(transport.peripheral().firmware as? SimulatedZephyrTarget)
    }

    @Test func theImageListShowsTheRunningImageActiveAndConfirmed() async throws {
        let transport = SimulatedTransport(peripherals: [SMPRunnerTests.zephyrDevice()])
        let list = try await Self.runner(transport).images(device: .address(Fixtures.address))
        #expect(list.count == 1)
        let running = try #require(list.first)
        #expect(running.image == 0 && running.slot == 0 && running.active && running.confirmed && !running.pending)
        let expected = try Self.target(transport).slots[0].image(inSlot: 0)?.imageHash
        #expect(running.hash == expected)
        #expect(try Self.target(transport).resets == 0)
    }

    @Test func testThenResetThenConfirmSwapsTheImageInForGood() async throws {
        let transport = SimulatedTransport(peripherals: [SMPRunnerTests.zephyrDevice()])
        var plan = try SMPRunnerTests.plan()
        plan.ending = .testWithoutReset
        _ = try await Self.runner(transport).update(plan, device: .address(Fixtures.address))
        #expect(try Self.target(transport).slots[0].nextBoot == .test)
        #expect(try Self.target(transport).resets == 0)

        try await Self.runner(transport).reset(device: .address(Fixtures.address))
        #expect(try Self.target(transport).resets == 1)
        #expect(try Self.target(transport).slots[0].primary == Self.image)
        // Running under test: MCUboot reverts it at the next reset unless it is confirmed.
        #expect(try Self.target(transport).slots[0].nextBoot == .revert)

        let hash = try #require(plan.images.first?.imageHash)
        let list = try await Self.runner(transport).setImageState(.confirm(hash: hash), device: .address(Fixtures.address))
        let running = try #require(list.first { $0.slot == 0 })
        #expect(running.hash == hash && running.active && running.confirmed)
        #expect(try Self.target(transport).slots[0].nextBoot == .none)
    }

    @Test func aTestMarkOfAnUnknownHashIsTheDevicesError() async throws {
        let transport = SimulatedTransport(peripherals: [SMPRunnerTests.zephyrDevice()])
        let error = await #expect(throws: DFUError.self) {
            try await Self.runner(transport).setImageState(.test(hash: [UInt8](repeating: 0xAB, count: 32)),
                                                           device: .address(Fixtures.address))
        }
        guard case .remote(_, _, .smp)? = error else {
            Issue.record("expected the device's SMP error, got \(String(describing: error))")
            return
        }
    }

    @Test func anNRF5BootloaderIsNoSMPServer() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()])
        // The device waits in its bootloader, at the address + 1.
        let selector = DFUDeviceSelector(addresses: [Fixtures.address, Fixtures.address.bootloaderAddress])
        let error = await #expect(throws: DFUError.self) { try await Self.runner(transport).images(device: selector) }
        guard case .unsupportedDevice(let reason)? = error else {
            Issue.record("expected the device to be refused, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("not an SMP (MCUmgr) server"), "\(reason)")
        #expect(transport.peripheral().inBootloader)
    }
}
