import DFUCore
import DFUSimulator
import Testing
import DFUFormats

@Suite struct RunnerEdgeTests {
    static let package = DFUPackage(format: .secure, parts: [Fixtures.securePart(size: 1_000)])

    @Test func absentDeviceIsReportedAfterTheScanTimeout() async throws {
        let transport = SimulatedTransport(peripherals: [])
        let runner = DFURunner(transport: transport, clock: transport.clock, options: Fixtures.options { $0.scanTimeout = .seconds(3) })
        // An nRF5 update also looks for the device's DFU bootloader at the address + 1.
        let looked = DFUDeviceSelector.address(Fixtures.address, orBootloaderAdvertising: DFUServiceUUIDs().bootloaderServices)
        await #expect(throws: DFUError.deviceNotFound(selector: looked, after: .seconds(3))) {
            _ = try await runner.update(Self.package, device: .address(Fixtures.address))
        }
        #expect(transport.clock.elapsed == .seconds(3))
        #expect(DFUError.deviceNotFound(selector: looked, after: .seconds(3)).description
            == "no device matching address C0:FF:EE:00:12:FF (or a DFU bootloader at C0:FF:EE:00:12:00) was found within 3 s; "
            + "check that it is powered, in range and advertising, or raise --scan-timeout")
        #expect(DFUError.deviceNotFound(selector: .address(Fixtures.address), after: .seconds(3)).description
            == "no device matching address C0:FF:EE:00:12:FF was found within 3 s; check that it is powered, in range and advertising, or raise --scan-timeout")
    }

    @Test func deviceWithoutDFUIsUnsupported() async throws {
        let plain = SimulatedPeripheral(profile: SimulatedDeviceProfile(address: Fixtures.address, bootloader: .secure(.init()),
                                                                        application: .plain))
        let transport = SimulatedTransport(peripherals: [plain])
        guard case .failure(.unsupportedDevice(let reason)) = await Fixtures.run(Self.package, on: transport) else {
            Issue.record("expected an unsupported device")
            return
        }
        #expect(reason == "no Secure or Legacy DFU service or buttonless characteristic on C0:FF:EE:00:12:FF; check the address or name")
    }

    @Test func legacyPackageOnASecureBootloaderIsRefusedBeforeSending() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()])
        let legacy = DFUPackage(format: .legacy, parts: [Fixtures.legacyPart()])
        guard case .failure(.protocolMismatch(.legacy, .secure)) = await Fixtures.run(legacy, on: transport) else {
            Issue.record("expected a protocol mismatch")
            return
        }
        #expect(!transport.trace.contains { if case .write = $0.event { true } else { false } })
    }

    @Test func emptyScopeIsAnInvalidPart() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()])
        guard case .failure(.invalidPart(.application, let reason)) = await Fixtures.run(
            Self.package, on: transport, options: Fixtures.options { $0.scope = .system }) else {
            Issue.record("expected an invalid part")
            return
        }
        #expect(reason == "the package has no part in the system scope")
    }

    @Test func sameSeedGivesTheSameAlternativeName() async throws {
        var names: [[UInt8]] = []
        for _ in 0..<2 {
            let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds)])
            _ = try await Fixtures.run(Self.package, on: transport).get()
            names += transport.trace.compactMap { if case .write(.buttonlessWithoutBonds, let bytes) = $0.event, bytes.first == 0x02 { bytes } else { nil } }
        }
        #expect(names.count == 2 && names[0] == names[1])
        let text = String(decoding: names[0].dropFirst(2), as: UTF8.self)
        #expect(text.count == 8 && text.hasPrefix("Dfu") && text.dropFirst(3).allSatisfy(\.isNumber))
    }
}
