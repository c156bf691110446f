import BlueZTransport
import DFUCore
import Glibc
import Synchronization
import TestSupport
import Testing
import DFUFormats

/// SMP uploads through BlueZTransport against `dfu-sim`'s `smp` and `smp-auth` devices (the project's
/// stand-in for bluetoothd serving Zephyr's SMP server above MCUboot), checked through dfu-sim's report:
/// the slots as the image list shows them, and the SMP and GATT statistics.
@Suite(.enabled(if: DFUSimServer.isAvailable, "needs dfu-sim built (swift build --build-tests)"), .timeLimit(.minutes(TestTime.limitMinutes(2))))
struct DFUSimSMPTests {
    static let image = LiveRig.mcubootImage(size: 40_000)
    /// The passkey an `smp-auth` device shows unless its spec says `passkey=`.
    static let shownPasskey: UInt32 = 123_456

    /// Serves `device` (a spec without the address) and updates it with ``image``; the result and dfu-sim's report.
    static func upload(
        _ device: String, faults: [String] = [], acquire: Bool = true, passkey: UInt32? = nil, prompt: DFUPasskeyPrompt? = nil
    ) async throws -> (Result<DFUUpdateReport, DFUError>, DFUSimServer.Report) {
        let (result, report, _) = try await timedUpload(device, faults: faults, acquire: acquire, passkey: passkey, prompt: prompt)
        return (result, report)
    }

    /// ``upload(_:faults:acquire:passkey:prompt:)``, also giving how long the update itself took (dfu-sim's start
    /// and stop left out).
    static func timedUpload(
        _ device: String, faults: [String] = [], acquire: Bool = true, passkey: UInt32? = nil, prompt: DFUPasskeyPrompt? = nil
    ) async throws -> (Result<DFUUpdateReport, DFUError>, DFUSimServer.Report, Duration) {
        let server = try await DFUSimServer.start(["--device", "\(device),address=\(LiveRig.address)"] + faults.flatMap { ["--fault", $0] })
        let result: Result<DFUUpdateReport, DFUError>
        let elapsed: Duration
        do {
            let transport = try await BlueZTransport.open(busAddress: server.address)
            await transport.setAcquiring(write: acquire, notify: acquire)
            await transport.setPairing(passkey: passkey, prompt: prompt)
            var options = LiveRig.options()
            options.scanTimeout = .seconds(5)
            options.connectTimeout = .seconds(5)
            let start = ContinuousClock.now
            result = await LiveRig.update(try LiveRig.smpPlan(image), over: transport, options: options)
            elapsed = ContinuousClock.now - start
            await transport.close()
        } catch {
            _ = try? await server.stop()
            throw error
        }
        return (result, try await server.stop(), elapsed)
    }

    /// The lower-case hex of ``image``'s SHA256 TLV, as the image list (and the report) shows it.
    static var imageHash: String {
        get throws {
            let hash = try #require(try MCUbootImage(bytes: image, name: "image").imageHash)
            return hash.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        }
    }

    /// The report shows the new image running from slot 0, confirmed, after one reset.
    static func expectUpdated(_ report: DFUSimServer.Report) throws {
        let device = try #require(report.devices.first)
        let running = try #require(device.slots?.first { $0.image == 0 && $0.slot == 0 })
        #expect(running.version == "2.0.0")
        #expect(running.hash == (try imageHash))
        #expect(running.size == image.count)
        #expect(running.active && running.confirmed && !running.pending)
        #expect(device.stats.smpResets == 1)
    }

    static func pairingFailure(_ result: Result<DFUUpdateReport, DFUError>) -> String? {
        guard case .failure(.transport(_, .pairingFailed(let message))) = result else { return nil }
        return message
    }

    @Test(arguments: [true, false])
    func anImageIsUploadedTestedSwappedAndConfirmed(acquire: Bool) async throws {
        let (result, report) = try await Self.upload("smp", acquire: acquire)
        let update = try result.get()
        #expect(update.bytesSent == Self.image.count)
        try Self.expectUpdated(report)
        let stats = try #require(report.devices.first?.stats)
        if acquire {
            #expect((stats.acquireWrite ?? 0) >= 1 && (stats.acquireNotify ?? 0) >= 1, "\(stats)")
            #expect((stats.writeValueCommands ?? 0) == 0)
        } else {
            #expect((stats.acquireWrite ?? 0) == 0 && (stats.acquireNotify ?? 0) == 0, "\(stats)")
            #expect((stats.writeValueCommands ?? 0) > Self.image.count / 244)
        }
    }

    @Test func theUploadResumesAfterTheLinkDrops() async throws {
        let (result, report) = try await Self.upload("smp", faults: ["disconnect-after-bytes=20000"])
        let update = try result.get()
        try Self.expectUpdated(report)
        let stats = try #require(report.devices.first?.stats)
        #expect(stats.connections == 3, "the upload, its resumption, and the confirmation after the swap")
        #expect(update.bytesTransferred < Self.image.count + 3 * 2475, "resumed from the device's offset")
    }

    @Test(arguments: [false, true])
    func anAuthenticatedDevicePairsWithThePasskeyItShows(prompted: Bool) async throws {
        let asked = Mutex(0)
        let prompt = DFUPasskeyPrompt { _ in
            asked.withLock { $0 += 1 }
            return Self.shownPasskey
        }
        let (result, report) = try await Self.upload(
            "smp-auth", passkey: prompted ? nil : Self.shownPasskey, prompt: prompted ? prompt : nil)
        _ = try result.get()
        try Self.expectUpdated(report)
        #expect(asked.withLock { $0 } == (prompted ? 1 : 0), "asked once: the bond serves the connection after the swap")
    }

    @Test func anAuthenticatedDeviceWithoutAPasskeyIsAClearPairingErrorAndNothingIsWritten() async throws {
        let (result, report, elapsed) = try await Self.timedUpload("smp-auth")
        let message = try #require(Self.pairingFailure(result), "\(result)")
        #expect(message.contains("\(LiveRig.address)"), "\(message)")
        #expect(message.contains("--passkey"), "\(message)")
        // No hang: well within the 60 s a pairing may take (make test-sanitize sets DFU_TEST_TIME_SCALE:
        // everything runs several times slower there).
        #expect(elapsed < TestTime.scaled(.seconds(30)), "\(elapsed)")
        let device = try #require(report.devices.first)
        #expect(device.slots?.count == 1, "only the running image: nothing was uploaded")
        #expect((device.stats.smpRequests ?? 0) == 0)
    }

    @Test func aWrongPasskeyIsAClearPairingError() async throws {
        let (result, _) = try await Self.upload("smp-auth", passkey: 654_321)
        let message = try #require(Self.pairingFailure(result), "\(result)")
        #expect(message.contains("pairing with \(LiveRig.address) failed"), "\(message)")
    }

    @Test func anEncryptionOnlyDevicePairsJustWorksWithoutAPasskey() async throws {
        let (result, report) = try await Self.upload("smp-auth,security=encrypted")
        _ = try result.get()
        try Self.expectUpdated(report)
    }
}
