import DFUCore
import DFUSimulator
import Testing
import DFUFormats

@Suite struct ButtonlessTests {
    static let part = Fixtures.securePart(size: 6_000, seed: 5)
    static let package = DFUPackage(format: .secure, parts: [part])

    static func connections(_ transport: SimulatedTransport) -> [DFUDeviceAddress] {
        transport.trace.compactMap { if case .connected(let address) = $0.event { address } else { nil } }
    }

    static func writes(_ transport: SimulatedTransport, to endpoint: DFUEndpoint) -> [[UInt8]] {
        transport.trace.compactMap { if case .write(endpoint, let bytes) = $0.event { bytes } else { nil } }
    }

    @Test func withoutBondsRenamesTheBootloaderAndFindsItAtTheNextAddress() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds)])
        _ = try await Fixtures.run(Self.package, on: transport).get()
        let installed = transport.peripheral().storage.application == Self.part.image
        #expect(installed)
        // C0:FF:EE:00:12:FF → the last byte wraps to 00 without carrying into 12.
        #expect(Self.connections(transport).map(\.description) == ["C0:FF:EE:00:12:FF", "C0:FF:EE:00:12:00"])
        let frames = Self.writes(transport, to: .buttonlessWithoutBonds)
        // 02 = set name, 08 = length, then "DfuNNNNN" in UTF-8; then 01 = enter bootloader.
        #expect(frames.count == 2)
        #expect(frames.first?.prefix(5) == [0x02, 0x08, 0x44, 0x66, 0x75])
        #expect(frames.last == [0x01])
        #expect(transport.violations.isEmpty)
    }

    @Test func bootloaderAdvertisesTheChosenName() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds)])
        let options = Fixtures.options { $0.alternativeName = .named("MyDfu") }
        _ = try await Fixtures.run(Self.package, on: transport, options: options).get()
        #expect(Self.writes(transport, to: .buttonlessWithoutBonds).first == [0x02, 0x05] + Array("MyDfu".utf8))
    }

    @Test func alternativeNameOffSendsOnlyEnter() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds)])
        _ = try await Fixtures.run(Self.package, on: transport, options: Fixtures.options { $0.alternativeName = .off }).get()
        #expect(Self.writes(transport, to: .buttonlessWithoutBonds) == [[0x01]])
    }

    @Test func sdk13ApplicationWithoutNamingStillJumps() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds) { $0.supportsNaming = false }])
        _ = try await Fixtures.run(Self.package, on: transport).get()
        let installed = transport.peripheral().storage.application == Self.part.image
        #expect(installed)
    }

    @Test func applicationThatRebootsOnNamingGivesAHint() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds) { $0.rebootsOnNaming = true }])
        let result = await Fixtures.run(Self.package, on: transport)
        guard case .failure(let error) = result, case .disconnected(.settingAdvertisingName, _) = error else {
            Issue.record("expected a disconnect while naming, got \(result)")
            return
        }
        #expect(error.description.contains("--no-alt-name"))
    }

    @Test func withBondsKeepsTheAddressAndSkipsNaming() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withBonds, bonded: true)])
        _ = try await Fixtures.run(Self.package, on: transport).get()
        let installed = transport.peripheral().storage.application == Self.part.image
        #expect(installed)
        #expect(Self.connections(transport).map(\.description) == ["C0:FF:EE:00:12:FF", "C0:FF:EE:00:12:FF"])
        #expect(Self.writes(transport, to: .buttonlessWithBonds) == [[0x01]])
    }

    @Test func withBondsOnAnUnbondedLinkTellsToPair() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withBonds, bonded: false)])
        let result = await Fixtures.run(Self.package, on: transport)
        guard case .failure(let error) = result, case .remote(.enteringBootloader, _, .buttonless(.notBonded)) = error else {
            Issue.record("expected not bonded, got \(result)")
            return
        }
        #expect(error.description.hasSuffix("pair with the device first"))
    }

    @Test func staleServicesAtTheSameAddressAreDiscoveredAgain() async throws {
        var faults = SimulatedFaults()
        faults.staleServicesAfterJump = true
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withBonds, bonded: true)], faults: faults)
        // Seed the host's cache with the application's table at that address, as a previous session would.
        _ = try await Fixtures.run(Self.package, on: transport).get()
        let installed = transport.peripheral().storage.application == Self.part.image
        #expect(installed)
        // App, bootloader as seen through the stale cache, bootloader discovered afresh.
        #expect(Self.connections(transport).count == 3)
        #expect(transport.violations.isEmpty)
    }

    @Test func experimentalButtonlessIsOptIn() async throws {
        let off = SimulatedTransport(peripherals: [Fixtures.secureDevice(.experimental)])
        guard case .failure(.unsupportedDevice) = await Fixtures.run(Self.package, on: off) else {
            Issue.record("the experimental service must not be used unless enabled")
            return
        }
        let on = SimulatedTransport(peripherals: [Fixtures.secureDevice(.experimental)])
        _ = try await Fixtures.run(Self.package, on: on, options: Fixtures.options { $0.experimentalButtonless = true }).get()
        let installed = on.peripheral().storage.application == Self.part.image
        #expect(installed)
        #expect(Self.connections(on).last?.description == "C0:FF:EE:00:12:00")
        #expect(Self.writes(on, to: .buttonlessExperimental) == [[0x01]])
    }

    @Test func userGivenBootloaderAddressOverridesTheRule() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds)])
        let wrong = Fixtures.options { $0.bootloaderAddress = DFUDeviceAddress("11:22:33:44:55:66") }
        guard case .failure(.bootloaderNotFound(let selector, _)) = await Fixtures.run(Self.package, on: transport, options: wrong) else {
            Issue.record("expected the bootloader not to be found")
            return
        }
        #expect(selector.addresses.map(\.description) == ["11:22:33:44:55:66"])
        let right = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds)])
        _ = try await Fixtures.run(Self.package, on: right, options: Fixtures.options {
            $0.bootloaderAddress = DFUDeviceAddress("C0:FF:EE:00:12:00")
        }).get()
    }

    @Test func userGivenBootloaderNameFindsItByName() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds)])
        _ = try await Fixtures.run(Self.package, on: transport, options: Fixtures.options {
            $0.alternativeName = .named("Target7")
            $0.bootloaderName = "Target7"
        }).get()
        #expect(Self.connections(transport).last?.description == "C0:FF:EE:00:12:00")
    }

    @Test func customUUIDsAreUsedForEveryRole() async throws {
        var uuids = DFUServiceUUIDs()
        uuids.secureService = "0000AAAA-0000-1000-8000-00805F9B34FB"
        uuids.secureControlPoint = "11111111-0000-0000-0000-000000000001"
        uuids.securePacket = "11111111-0000-0000-0000-000000000002"
        uuids.buttonlessWithoutBonds = "11111111-0000-0000-0000-000000000003"
        var configuration = SecureBootloaderConfiguration()
        configuration.uuids = uuids
        let device = Fixtures.secureDevice(.withoutBonds, configuration: configuration) { $0.uuids = uuids }
        let transport = SimulatedTransport(peripherals: [device])
        _ = try await Fixtures.run(Self.package, on: transport, options: Fixtures.options { $0.uuids = uuids }).get()
        let installed = transport.peripheral().storage.application == Self.part.image
        #expect(installed)
        // With Nordic's UUIDs the same device offers nothing the engine knows.
        let standard = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds, configuration: configuration) { $0.uuids = uuids }])
        guard case .failure(.unsupportedDevice) = await Fixtures.run(Self.package, on: standard) else {
            Issue.record("expected an unsupported device")
            return
        }
    }

    @Test(arguments: [
        ("AA:BB:CC:DD:EE:FF", "AA:BB:CC:DD:EE:00"),
        ("AA:BB:CC:DD:EE:00", "AA:BB:CC:DD:EE:01"),
        ("00:00:00:00:FF:FE", "00:00:00:00:FF:FF"),
    ])
    func bootloaderAddressAddsOneToTheLastByteWithoutCarry(_ pair: (String, String)) {
        #expect(DFUDeviceAddress(pair.0)?.bootloaderAddress.description == pair.1)
    }
}
