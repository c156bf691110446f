import BlueZTransport
import DFUCore
import Testing

/// DFURunner over BlueZTransport against `dfu-sim`, the project's stand-in for bluetoothd,
/// checked byte-exact through dfu-sim's report (size and CRC-32 of each image in its flash).
@Suite(.enabled(if: DFUSimServer.isAvailable, "needs dfu-sim built (swift build --build-tests)"), .timeLimit(.minutes(2)))
struct DFUSimUploadTests {
    static let app = "C0:FF:EE:00:12:FF"

    /// Serves `devices`, runs an update of `package` for `selector`, and returns dfu-sim's report.
    static func upload(
        _ package: DFUPackage, devices: [String], extra: [String] = [], selector: DFUDeviceSelector? = nil,
        acquireWrite: Bool = true, acquireNotify: Bool = true,
        configure: (inout DFUOptions) -> Void = { _ in }
    ) async throws -> (Result<DFUUpdateReport, DFUError>, DFUSimServer.Report) {
        let server = try DFUSimServer(devices.flatMap { ["--device", $0] } + extra)
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
            _ = try? server.stop()
            throw error
        }
        return (result, try server.stop())
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
}
