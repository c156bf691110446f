import DFUCore
import DFUCrypto
import DFUSimulator
import Testing
import TestSupport
import DFUFormats

@Suite struct SecureRejectionTests {
    @Test(arguments: SecureDFUExtendedError.allKnown)
    func everyExtendedErrorIsReportedByNameAndCode(_ extended: SecureDFUExtendedError) async throws {
        var configuration = SecureBootloaderConfiguration()
        configuration.rejectInitPacketWith = extended
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(configuration: configuration)])
        let result = await Fixtures.run(DFUPackage(format: .secure, parts: [Fixtures.securePart()]), on: transport)
        guard case .failure(let error) = result,
            case .remote(.executingInitPacket, "the init packet", .secure(.extendedError, extended)) = error
        else {
            Issue.record("expected the rejection with \(extended), got \(result)")
            return
        }
        let code = "(extended error 0x" + [extended.rawValue].hexDescription + ")"
        #expect(error.description.hasPrefix("the bootloader rejected the init packet: \(extended.meaning) \(code)"))
        #expect(extended.meaning != SecureDFUExtendedError(rawValue: 0x42).meaning)
    }

    @Test func unknownCodesFromADeviceStillPrint() {
        #expect(SecureDFUExtendedError(rawValue: 0x42).description == "unknown extended error (extended error 0x42)")
        #expect(SecureDFUResultCode(rawValue: 0x09).description == "unknown result (0x09)")
        #expect(SecureDFUOpCode(rawValue: 0x42).description == "opcode 0x42")
        #expect(LegacyDFUStatus(rawValue: 9).description == "unknown status (status 9)")
        #expect(ButtonlessStatus(rawValue: 0x33).description == "unknown status (0x33)")
    }

    struct Check: CustomTestStringConvertible, Sendable {
        let name: String
        let part: FirmwarePart
        let configuration: SecureBootloaderConfiguration
        let storage: SimulatedStorage
        let expected: SecureDFUExtendedError
        let step: DFUStep
        var testDescription: String { name }
    }

    static let checks: [Check] = {
        var signed = SecureBootloaderConfiguration()
        signed.requiresSignature = true
        var small = SecureBootloaderConfiguration()
        small.maximumImageSize = 10_000
        let image = TestFirmware.image(size: 4_000)
        var wrongHash = SecureInitCommand(kind: .application, image: image, firmwareVersion: 2, hash: Array(repeating: 0xAB, count: 32))
        wrongHash.hashType = .sha256
        let tampered = FirmwarePart(kind: .application, image: image, initPacket: wrongHash.packet)
        return [
            Check(name: "application older than installed → 0x05", part: Fixtures.securePart(firmwareVersion: 1),
                  configuration: .init(), storage: .init(applicationVersion: 3), expected: .firmwareVersionFailure,
                  step: .executingInitPacket),
            Check(name: "bootloader not newer → 0x05", part: Fixtures.securePart(.bootloader, firmwareVersion: 1),
                  configuration: .init(), storage: .init(bootloaderVersion: 1), expected: .firmwareVersionFailure,
                  step: .executingInitPacket),
            Check(name: "other hardware → 0x06", part: Fixtures.securePart(hardwareVersion: 51),
                  configuration: .init(), storage: .init(), expected: .hardwareVersionFailure, step: .executingInitPacket),
            Check(name: "installed SoftDevice not in sd_req → 0x07", part: Fixtures.securePart(softdeviceRequirements: [0x00AF]),
                  configuration: .init(), storage: .init(), expected: .softDeviceVersionFailure, step: .executingInitPacket),
            Check(name: "unsigned packet on a signing bootloader → 0x08", part: Fixtures.securePart(),
                  configuration: signed, storage: .init(), expected: .signatureMissing, step: .executingInitPacket),
            Check(name: "image larger than the bank → 0x0D", part: Fixtures.securePart(size: 20_000),
                  configuration: small, storage: .init(), expected: .insufficientSpace, step: .executingInitPacket),
            Check(name: "image hash differs from the init packet → 0x0C after the last object", part: tampered,
                  configuration: .init(), storage: .init(), expected: .verificationFailed, step: .validatingFirmware),
        ]
    }()

    @Test(arguments: checks)
    func bootloaderChecksTheInitPacketLikeTheSDK(_ check: Check) async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(configuration: check.configuration, storage: check.storage)])
        let result = await Fixtures.run(DFUPackage(format: .secure, parts: [check.part]), on: transport)
        guard case .failure(.remote(let step, _, .secure(.extendedError, let extended))) = result else {
            Issue.record("expected a remote error, got \(result)")
            return
        }
        #expect(step == check.step)
        #expect(extended == check.expected)
        #expect(transport.violations.isEmpty)
        let installed = transport.peripheral().storage.application == check.part.image
        #expect(!installed)
    }

    @Test func controlPointWriteBeforeNotificationsIsRejectedWithATTErrorFD() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()])
        let peer = try await transport.connect(DFUConnectParameters(
            selector: .address(transport.peripheral().address), scanTimeout: .seconds(1), connectTimeout: .seconds(1),
            uuids: DFUServiceUUIDs()))
        #expect(peer.endpoints == [.secureControlPoint, .securePacket])
        await #expect(throws: DFUTransportError.attError(0xFD)) {
            try await transport.write(SecureDFURequest.select(.command).bytes, to: .secureControlPoint, type: .withResponse)
        }
        #expect(DFUTransportError.attError(0xFD).description.contains("GATT cache may be stale"))
    }

    @Test func cancellingSendsAbortAndTheBootloaderResets() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice()])
        let part = Fixtures.securePart(size: 20_000)
        let runner = DFURunner(transport: transport, clock: transport.clock, options: Fixtures.options()) { progress in
            // Cancel the running update from inside, once a third of the image is out.
            if progress.state == .uploading, progress.bytesSent > 6_000 { withUnsafeCurrentTask { $0?.cancel() } }
        }
        let target = transport.peripheral().address
        let task = Task { () async -> Result<DFUUpdateReport, DFUError> in
            do throws(DFUError) { return .success(try await runner.update(DFUPackage(format: .secure, parts: [part]), device: .address(target))) }
            catch { return .failure(error) }
        }
        let result = await task.value
        guard case .failure(.aborted(.sendingFirmware)) = result else {
            Issue.record("expected an abort, got \(result)")
            return
        }
        let lastWrite = transport.trace.last { if case .write(.secureControlPoint, _) = $0.event { true } else { false } }
        #expect(lastWrite?.event == .write(.secureControlPoint, [0x0C]))
        #expect(transport.violations.isEmpty)
    }

    @Test func progressReportsStatesPartsAndSpeedsFromTheClock() async throws {
        let transport = SimulatedTransport(peripherals: [Fixtures.secureDevice(.withoutBonds)])
        let log = ProgressLog()
        // Long enough (several seconds of modelled air time) for speeds to be measured.
        let part = Fixtures.securePart(size: 300_000)
        _ = try await Fixtures.run(DFUPackage(format: .secure, parts: [part]), on: transport, progress: log).get()
        let states = log.all.map(\.state)
        var order: [DFUState] = []
        for state in states where order.last != state { order.append(state) }
        #expect(order == [.connecting, .enablingDFUMode, .starting, .uploading, .validating, .disconnecting, .completed])
        let uploads = log.all.filter { $0.state == .uploading }
        #expect(uploads.map(\.bytesSent) == uploads.map(\.bytesSent).sorted())
        #expect(uploads.last?.bytesSent == 300_000)
        // No figure until two seconds of transfer are measured, then one in every report.
        let measured = uploads.drop { $0.averageSpeed == 0 }
        #expect(!measured.isEmpty && measured.count < uploads.count, "speeds start after the first reports")
        #expect(measured.allSatisfy { $0.currentSpeed > 0 && $0.averageSpeed > 0 })
        // Modelled speeds stay below the air's 1M PHY ceiling (~100 kB/s with 244-byte packets).
        #expect(uploads.allSatisfy { $0.averageSpeed < 120_000 })
        #expect(log.all.last?.percent == 100)
    }
}
