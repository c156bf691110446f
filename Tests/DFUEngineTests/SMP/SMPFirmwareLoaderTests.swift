import DFUCore
import DFUFormats
import DFUSimulator
import Testing

/// MCUboot's firmware loader mode through the runner: the application is reset into its loader with `boot_mode` 1, the
/// loader takes the image into the application's slot, and after its reset the application runs it; each fault
/// leaves the device where a rerun carries on, and says where it is.
@Suite struct SMPFirmwareLoaderTests {
    static let image = zephyrImage(3, body: 24_000, seed: 21)

    static func plan(_ image: [UInt8] = image, firmwareLoader: Bool? = nil) throws -> SMPUploadPlan {
        let hash = try #require(try MCUbootImage(bytes: image, name: "image").imageHash)
        return SMPUploadPlan(images: [SMPUploadImage(image: 0, bytes: image, imageHash: hash)], firmwareLoader: firmwareLoader)
    }

    /// An nRF54L application above MCUboot in firmware loader mode (the nRF Connect SDK's loader unless `loader` says).
    static func device(_ loader: FirmwareLoaderConfiguration = FirmwareLoaderConfiguration(),
                       configure: (inout ZephyrTargetConfiguration) -> Void = { _ in }) -> SimulatedPeripheral {
        var configuration = ZephyrTargetConfiguration()
        configuration.name = "firmware_loader_entrance"
        configuration.firmwareLoader = loader
        configure(&configuration)
        return SimulatedPeripheral(profile: .nrf52840Zephyr(address: Fixtures.address, configuration: configuration))
    }

    static func target(_ transport: SimulatedTransport) throws -> SimulatedZephyrTarget {
        try #require(transport.peripheral().firmware as? SimulatedZephyrTarget)
    }

    static func connections(_ transport: SimulatedTransport) -> [DFUDeviceAddress] {
        transport.trace.compactMap { if case .connected(let address) = $0.event { address } else { nil } }
    }

    static func update(_ transport: SimulatedTransport, plan: SMPUploadPlan, progress: ProgressLog? = nil,
                       configure: (inout DFUOptions) -> Void = { _ in }) async -> Result<DFUUpdateReport, DFUError> {
        let runner = DFURunner(transport: transport, clock: transport.clock, options: Fixtures.options(configure: configure)) {
            progress?.append($0)
        }
        do {
            return .success(try await runner.update(plan, device: .address(Fixtures.address)))
        } catch {
            return .failure(error)
        }
    }

    @Test func theApplicationIsResetIntoItsLoaderWhichWritesTheImageThatThenRuns() async throws {
        let transport = SimulatedTransport(peripherals: [Self.device()])
        let progress = ProgressLog()
        let report = try await Self.update(transport, plan: try Self.plan(), progress: progress).get()
        let target = try Self.target(transport)
        #expect(target.slots[0].primary == Self.image)
        #expect(!target.runsLoader)
        #expect(target.advertisedName == "firmware_loader_entrance")
        // Application (reset with boot_mode 1), loader (upload, reset), application (running it): one address.
        #expect(Self.connections(transport) == [Fixtures.address, Fixtures.address, Fixtures.address])
        #expect(target.resets == 2)
        #expect(report.smpImages == [SMPImageReport(image: 0, state: .confirmed)])
        #expect(progress.all.contains { $0.state == .enablingDFUMode })
        #expect(progress.all.filter { $0.state == .uploading }.last?.bytesSent == Self.image.count)
    }

    @Test func theBareMetalLoaderIsFoundAtTheAddressWithItsLowestBitInvertedAndTheApplicationBackAtItsOwn() async throws {
        let transport = SimulatedTransport(peripherals: [Self.device(.bareMetal)])
        _ = try await Self.update(transport, plan: try Self.plan()).get()
        #expect(try Self.target(transport).slots[0].primary == Self.image)
        #expect(transport.peripheral().address == Fixtures.address)
        // C0:FF:EE:00:12:FF's loader advertises at …:FE.
        #expect(Self.connections(transport) == [Fixtures.address, Fixtures.address.firmwareLoaderAddress, Fixtures.address])
        #expect(Fixtures.address.firmwareLoaderAddress.description == "C0:FF:EE:00:12:FE")
    }

    @Test func anImageThatFailsMCUbootsCheckLeavesTheDeviceInItsLoaderAndSaysSo() async throws {
        let key = try MCUbootImages.key("ecdsa-p256")
        let unsigned = try MCUbootImages.image("unsigned.bin")
        let transport = SimulatedTransport(peripherals: [Self.device { $0.verifyingKey = key }])
        let result = await Self.update(transport, plan: try Self.plan(unsigned))
        guard case .failure(.remote(_, _, .smpImage(.notStartedByFirmwareLoader(image: 0)))) = result else {
            Issue.record("expected the loader to come back, got \(result)")
            return
        }
        // Written, refused by MCUboot at the reset, so the loader runs again (BOOT_FIRMWARE_LOADER_NO_APPLICATION).
        let target = try Self.target(transport)
        #expect(target.runsLoader)
        #expect(Array(target.slots[0].primary.prefix(unsigned.count)) == unsigned)
        // A rerun with a signed image finds the loader and finishes the update.
        let signed = try MCUbootImages.image("ecdsa-p256.bin")
        _ = try await Self.update(transport, plan: try Self.plan(signed)).get()
        #expect(try !Self.target(transport).runsLoader)
        #expect(try Self.target(transport).slots[0].primary == signed)
    }

    @Test func anApplicationWhoseResetIgnoresBootModeIsNamedAndNothingIsWritten() async throws {
        var loader = FirmwareLoaderConfiguration()
        loader.resetTakesBootMode = false  // Zephyr before 4.2, or MCUMGR_GRP_OS_RESET_BOOT_MODE off
        let transport = SimulatedTransport(peripherals: [Self.device(loader)])
        let before = try Self.target(transport).slots[0].primary
        let result = await Self.update(transport, plan: try Self.plan())
        guard case .failure(.unsupportedDevice(let reason)) = result else {
            Issue.record("expected the device to be named as not switching, got \(result)")
            return
        }
        #expect(reason.contains("came back as its application"), "\(reason)")
        #expect(reason.contains("boot_mode"), "\(reason)")
        #expect(try Self.target(transport).slots[0].primary == before)
        #expect(try !Self.target(transport).runsLoader)
    }

    @Test func aLoaderThatNeverAdvertisesIsReportedAsNotFound() async throws {
        var loader = FirmwareLoaderConfiguration()
        loader.loaderNeverAdvertises = true
        let transport = SimulatedTransport(peripherals: [Self.device(loader)])
        let result = await Self.update(transport, plan: try Self.plan())
        guard case .failure(.bootloaderNotFound(let selector, _)) = result else {
            Issue.record("expected the loader not to be found, got \(result)")
            return
        }
        #expect(selector.addresses == [Fixtures.address])
    }

    @Test func aLoaderTheApplicationRenamedIsFoundByTheNameTheUserGives() async throws {
        // A Bare Metal application can give its loader another name (settings `fw_loader/adv_name`) before the reset.
        var loader = FirmwareLoaderConfiguration.bareMetal
        loader.name = "Rig7Loader"
        let transport = SimulatedTransport(peripherals: [Self.device(loader)])
        _ = try await Self.update(transport, plan: try Self.plan()) { $0.bootloaderName = "Rig7Loader" }.get()
        #expect(try Self.target(transport).slots[0].primary == Self.image)
        // Named elsewhere: the loader is not taken, and the user hears that it was not found.
        let other = SimulatedTransport(peripherals: [Self.device(loader)])
        let result = await Self.update(other, plan: try Self.plan()) {
            $0.bootloaderAddress = DFUDeviceAddress("C0:FF:EE:00:99:99")
            $0.scanTimeout = .seconds(2)
        }
        guard case .failure(.bootloaderNotFound(let selector, _)) = result else {
            Issue.record("expected the loader not to be found at the address given, got \(result)")
            return
        }
        #expect(selector.addresses.map(\.description) == ["C0:FF:EE:00:99:99"])
    }

    @Test(arguments: [FirmwareLoaderConfiguration(), .bareMetal])
    func anUploadCutInTheLoaderResumesThere(loader: FirmwareLoaderConfiguration) async throws {
        let transport = SimulatedTransport(peripherals: [Self.device(loader)])
        var faults = SimulatedFaults()
        faults.disconnectAfterPacketBytes = 10_000
        transport.setFaults(faults)
        let report = try await Self.update(transport, plan: try Self.plan()).get()
        #expect(report.reconnections == 1)
        #expect(try Self.target(transport).slots[0].primary == Self.image)
        #expect(try !Self.target(transport).runsLoader)
    }

    @Test func aRerunNamingTheApplicationFindsTheBareMetalLoaderAnInterruptedUpdateLeft() async throws {
        // The first run stops for good in the loader (no reconnection allowed): the application's slot is half written.
        let transport = SimulatedTransport(peripherals: [Self.device(.bareMetal)])
        var faults = SimulatedFaults()
        faults.disconnectAfterPacketBytes = 10_000
        transport.setFaults(faults)
        let first = await Self.update(transport, plan: try Self.plan()) { $0.reconnectAttempts = 0 }
        guard case .failure = first else {
            Issue.record("expected the first run to stop, got \(first)")
            return
        }
        #expect(try Self.target(transport).runsLoader)
        #expect(transport.peripheral().address == Fixtures.address.firmwareLoaderAddress)
        _ = try await Self.update(transport, plan: try Self.plan()).get()
        #expect(try Self.target(transport).slots[0].primary == Self.image)
        #expect(transport.peripheral().address == Fixtures.address)
    }

    @Test func anSMPApplicationAtTheFallbackAddressIsNotEvenConnected() async throws {
        // Nothing at the address named; at the address with its lowest bit inverted, another device's application.
        let neighbour = SimulatedPeripheral(profile: .nrf52840Zephyr(address: Fixtures.address.firmwareLoaderAddress))
        let transport = SimulatedTransport(peripherals: [neighbour])
        let result = await Self.update(transport, plan: try Self.plan())
        guard case .failure(.deviceNotFound(let selector, _)) = result else {
            Issue.record("expected the device named not to be found, got \(result)")
            return
        }
        #expect(selector.addresses == [Fixtures.address])
        #expect(Self.connections(transport).isEmpty)
    }

    @Test func anSMPServerAtTheFallbackAddressWithTheLoadersNameButNoLoaderIsLeftAsItWas() async throws {
        var configuration = ZephyrTargetConfiguration()
        configuration.name = "nRF_BM_MCUmgr"
        let neighbour = SimulatedPeripheral(profile: .nrf52840Zephyr(address: Fixtures.address.firmwareLoaderAddress,
                                                                     configuration: configuration))
        let transport = SimulatedTransport(peripherals: [neighbour])
        let before = try Self.target(transport).slots[0]
        let result = await Self.update(transport, plan: try Self.plan())
        guard case .failure(.deviceNotFound(let selector, _)) = result else {
            Issue.record("expected the device named not to be found, got \(result)")
            return
        }
        #expect(selector.addresses == [Fixtures.address])
        #expect(selector.fallbackAddresses.isEmpty)
        // Read (its parameters and image list), never written to nor reset.
        let after = try Self.target(transport).slots[0]
        #expect(after.primary == before.primary && after.secondary == before.secondary)
        #expect(try Self.target(transport).resets == 0)
    }

    @Test func anApplicationWithoutBootloaderInfoNeedsTheUsersWordAndThenUpdates() async throws {
        let transport = SimulatedTransport(peripherals: [Self.device { $0.bootloaderInfo = false }])
        let refused = await Self.update(transport, plan: try Self.plan())
        guard case .failure(.unsupportedDevice(let reason)) = refused else {
            Issue.record("expected the device to be refused, got \(refused)")
            return
        }
        #expect(reason.contains("--firmware-loader"), "\(reason)")
        #expect(try Self.target(transport).resets == 0)
        _ = try await Self.update(transport, plan: try Self.plan(firmwareLoader: true)).get()
        #expect(try Self.target(transport).slots[0].primary == Self.image)
    }

    @Test func anApplicationAlreadyRunningTheImageIsLeftAsItIs() async throws {
        var configuration = FirmwareLoaderConfiguration()
        configuration.applicationListsImages = true
        let transport = SimulatedTransport(peripherals: [Self.device(configuration) {
            $0.images = [ZephyrTargetConfiguration.Image(slotSize: 0x7_6000, initialImage: Self.image)]
        }])
        let report = try await Self.update(transport, plan: try Self.plan()).get()
        #expect(report.smpImages == [SMPImageReport(image: 0, state: .confirmed)])
        #expect(try Self.target(transport).resets == 0)
    }

    @Test func aPackageOfTwoImagesIsRefusedBeforeTheApplicationIsReset() async throws {
        let transport = SimulatedTransport(peripherals: [Self.device()])
        var plan = try Self.plan()
        plan.images.append(SMPUploadImage(image: 1, bytes: Self.image, imageHash: plan.images[0].imageHash))
        let result = await Self.update(transport, plan: plan)
        guard case .failure(.firmwareMismatch(let reason)) = result else {
            Issue.record("expected a mismatch, got \(result)")
            return
        }
        #expect(reason.contains("one application slot"), "\(reason)")
        #expect(try Self.target(transport).resets == 0)
    }

    // MARK: - dfu trigger

    @Test(arguments: [FirmwareLoaderConfiguration(), .bareMetal])
    func triggerSwitchesTheApplicationIntoItsLoaderAndNamesWhereItIs(loader: FirmwareLoaderConfiguration) async throws {
        let transport = SimulatedTransport(peripherals: [Self.device(loader)])
        let runner = DFURunner(transport: transport, clock: transport.clock, options: Fixtures.options())
        let (found, switched) = try await runner.switchToBootloader(device: .address(Fixtures.address))
        #expect(switched)
        #expect(try Self.target(transport).runsLoader)
        #expect(found.address == transport.peripheral().address)
        #expect(found.name == loader.name)
        // Run again: already in its loader, found as it is.
        let again = try await runner.switchToBootloader(device: .address(found.address))
        #expect(!again.switched)
        #expect(again.bootloader.address == found.address)
    }

    @Test func triggerLeavesAnSMPServerThatIsNotInFirmwareLoaderModeAsItIs() async throws {
        let transport = SimulatedTransport(peripherals: [SMPRunnerTests.zephyrDevice()])
        let runner = DFURunner(transport: transport, clock: transport.clock, options: Fixtures.options())
        let error = await #expect(throws: DFUError.self) { try await runner.switchToBootloader(device: .address(Fixtures.address)) }
        guard case .unsupportedDevice(let reason)? = error else {
            Issue.record("expected the device to be refused, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("no nRF5 DFU bootloader or MCUboot firmware loader"), "\(reason)")
        #expect(try Self.target(transport).resets == 0)
    }
}
