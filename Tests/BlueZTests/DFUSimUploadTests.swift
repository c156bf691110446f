import BlueZ
import BlueZTransport
import DFUCore
import Glibc
import TestSupport
import Testing
import DFUFormats

/// DFURunner over BlueZTransport against `dfu-sim`, the project's stand-in for bluetoothd,
/// checked byte-exact through dfu-sim's report (size and CRC-32 of each image in its flash).
@Suite(.enabled(if: DFUSimServer.isAvailable, "needs dfu-sim built (swift build --build-tests)"), .timeLimit(.minutes(TestTime.limitMinutes(2))))
struct DFUSimUploadTests {
    static let app = "C0:FF:EE:00:12:FF"

    /// Serves `devices`, runs an update of `package` for `selector`, and returns dfu-sim's report.
    static func upload(
        _ package: DFUPackage, devices: [String], extra: [String] = [], selector: DFUDeviceSelector? = nil,
        acquireWrite: Bool = true, acquireNotify: Bool = true,
        configure: (inout DFUOptions) -> Void = { _ in }
    ) async throws -> (Result<DFUUpdateReport, DFUError>, DFUSimServer.Report) {
        let server = try await DFUSimServer.start(devices.flatMap { ["--device", $0] } + extra)
        let result: Result<DFUUpdateReport, DFUError>
        do {
            let transport = try await BlueZTransport.open(busAddress: server.address)
            await transport.setAcquiring(write: acquireWrite, notify: acquireNotify)
            var options = DFUOptions()
            options.scanTimeout = .seconds(5)
            options.connectTimeout = .seconds(5)
            options.nameSeed = 7
            configure(&options)
            result = await LiveRig.update(package, over: transport, options: options, device: selector ?? .address(LiveRig.address))
            await transport.close()
        } catch {
            _ = try? await server.stop()
            throw error
        }
        return (result, try await server.stop())
    }

    static func image(_ report: DFUSimServer.Report, _ type: String) -> DFUSimServer.Report.Device.Image? {
        report.devices.first?.images[type]
    }

    @Test(arguments: [(12_000, true, true), (40_000, true, true), (12_000, false, true), (12_000, true, false), (12_000, false, false)])
    func secureBootloaderUploadIsByteExact(size: Int, acquireWrite: Bool, acquireNotify: Bool) async throws {
        let package = LiveRig.securePackage(size: size)
        let bootloader = try #require(DFUDeviceAddress("C0:FF:EE:00:13:00"))
        let (result, report) = try await Self.upload(
            package, devices: ["secure,address=\(bootloader)"], selector: .address(bootloader),
            acquireWrite: acquireWrite, acquireNotify: acquireNotify)
        _ = try result.get()
        let expected = DFUSimServer.imageSummary(try #require(package.parts.first).image)
        let image = try #require(Self.image(report, "application"))
        #expect(image.size == expected.size && image.crc32 == expected.crc32)
    }

    /// Whether the report's image of `type` is exactly `bytes` (size and CRC-32).
    static func holds(_ report: DFUSimServer.Report, _ type: String, _ bytes: [UInt8]) -> Bool {
        let expected = DFUSimServer.imageSummary(bytes)
        guard let image = image(report, type) else { return false }
        return image.size == expected.size && image.crc32 == expected.crc32
    }

    @Test(arguments: [
        ("buttonless", false),  // bootloader at address + 1
        ("buttonless-bonded", false),  // same address: the GATT cache of the app must not be reused
        ("buttonless-experimental", true),
    ])
    func buttonlessVariantsSwitchAndUploadByteExact(kind: String, experimental: Bool) async throws {
        let package = LiveRig.securePackage()
        let (result, report) = try await Self.upload(package, devices: ["\(kind),address=\(Self.app)"]) { options in
            options.experimentalButtonless = experimental
        }
        _ = try result.get()
        #expect(Self.holds(report, "application", try #require(package.parts.first).image))
    }

    @Test func buttonlessWithAnAlternativeNameFindsTheRenamedBootloader() async throws {
        let package = LiveRig.securePackage()
        let (result, report) = try await Self.upload(package, devices: ["buttonless,address=\(Self.app)"]) { options in
            options.alternativeName = .named("DfuAltName")
        }
        _ = try result.get()
        #expect(Self.holds(report, "application", try #require(package.parts.first).image))
    }

    @Test func legacyApplicationJumpsAndUploadsByteExact() async throws {
        let package = LiveRig.legacyPackage()
        let (result, report) = try await Self.upload(package, devices: ["legacy-app,address=\(Self.app)"])
        _ = try result.get()
        #expect(Self.holds(report, "application", try #require(package.parts.first).image))
    }

    @Test func multiPartSoftDeviceBootloaderThenApplication() async throws {
        let system = LiveRig.securePart(.softdeviceBootloader, size: 30_000, seed: 5, softdeviceSize: 20_000)
        let app = LiveRig.securePart(.application, size: 9_000, seed: 6, softdeviceRequirements: [0x0123])
        let package = DFUPackage(format: .secure, parts: [app, system])
        let (result, report) = try await Self.upload(package, devices: ["buttonless,address=\(Self.app),sd_id_after=0x0123"])
        let sent = try result.get()
        #expect(sent.partsSent == [.softdeviceBootloader, .application])
        #expect(Self.holds(report, "softdevice", Array(system.image[0..<20_000])))
        #expect(Self.holds(report, "bootloader", Array(system.image[20_000...])))
        #expect(Self.holds(report, "application", app.image))
    }

    @Test func resumesAfterADisconnectInTheMiddleOfADataObject() async throws {
        let package = LiveRig.securePackage(size: 20_000)
        let (result, report) = try await Self.upload(
            package, devices: ["secure,address=\(Self.app)"], extra: ["--fault", "disconnect-after-bytes=6000"],
            selector: .address(try #require(DFUDeviceAddress(Self.app))))
        _ = try result.get()
        #expect(Self.holds(report, "application", try #require(package.parts.first).image))
        #expect((report.devices.first?.stats.connections ?? 0) >= 2)
    }

    @Test func failedConnectionAttemptsAreRetried() async throws {
        let package = LiveRig.securePackage()
        let (result, report) = try await Self.upload(
            package, devices: ["secure,address=\(Self.app)"], extra: ["--fault", "fail-connections=2"],
            selector: .address(try #require(DFUDeviceAddress(Self.app))))
        _ = try result.get()
        #expect(Self.holds(report, "application", try #require(package.parts.first).image))
    }

    @Test func aDeviceNotAdvertisingIsNotFoundWithinTheScanTimeout() async throws {
        let absent = try #require(DFUDeviceAddress("AA:BB:CC:DD:EE:01"))
        var start = ContinuousClock.now
        let (result, _) = try await Self.upload(
            LiveRig.securePackage(), devices: ["secure,address=\(Self.app)"], selector: .address(absent)
        ) { options in
            options.scanTimeout = .milliseconds(500)
            options.connectionAttempts = 1
            // Timed from here: dfu-sim and its bus are up, the update starts right after this.
            start = ContinuousClock.now
        }
        let elapsed = ContinuousClock.now - start
        // The rig's own scan timeout is 5 s: ending well before it shows the 0.5 s one was used.
        // make test-sanitize sets DFU_TEST_TIME_SCALE: everything runs several times slower there.
        #expect(elapsed < TestTime.scaled(.seconds(4)), "\(elapsed)")
        guard case .failure(let error) = result else {
            Issue.record("found a device that does not exist")
            return
        }
        #expect("\(error)".contains("found"), "\(error)")
    }

    @Test func aPoweredOffAdapterIsReportedWhenOpening() async throws {
        try await DFUSimServer.with(["--device", "secure,address=\(Self.app)", "--adapter-off"]) { server in
            do throws(BlueZError) {
                let transport = try await BlueZTransport.open(busAddress: server.address)
                await transport.close()
                Issue.record("opened a powered-off adapter")
            } catch {
                #expect(error == .adapterPoweredOff("hci0"))
            }
        }
    }
}
