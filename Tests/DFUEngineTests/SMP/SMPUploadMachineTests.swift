import CBOR
@testable import DFUCore
import DFUCrypto
import Testing

/// The SMP upload machine fed events as the runner feeds them, against annotated frames and against
/// ``ScriptedSMPServer`` with faults.
@Suite struct SMPUploadMachineTests {
    static let peer = DFUPeer(address: DFUDeviceAddress("C0:FF:EE:00:12:34")!, name: "smp_svr", endpoints: [.smp],
                              serviceCount: 1, maximumWriteLength: 495, isBonded: false)

    static func image(_ count: Int, seed: UInt8, number: Int = 0) -> SMPUploadImage {
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
        return SMPUploadImage(image: number, bytes: bytes, imageHash: SHA256.digest([seed] + bytes.prefix(64)))
    }

    static func setup(_ plan: SMPUploadPlan, restarts: Int = 0, writeLength: Int = 495) -> DFUMachineSetup {
        var options = DFUOptions()
        options.responseTimeout = .seconds(2)
        var peer = peer
        peer.maximumWriteLength = writeLength
        return DFUMachineSetup(.uploadImages(plan), options: options, peer: peer, mode: .smpServer, restarts: restarts)
    }

    static let oldHash = [UInt8](repeating: 0x01, count: 32)

    static func server(for images: [SMPUploadImage]) -> ScriptedSMPServer {
        let server = ScriptedSMPServer()
        for image in images {
            server.validImages[image.fileSHA256] = image.imageHash
            server.primary[image.image] = .init(hash: oldHash + [UInt8(image.image)], version: "1.0.0", confirmed: true)
        }
        return server
    }

    // MARK: - Byte for byte

    @Test func opensWithNotificationsThenParametersThenTheImageList() {
        var machine = SMPUploadMachine(Self.setup(SMPUploadPlan(images: [Self.image(100, seed: 1)])))
        let timeout = DFUMachineAction.awaitNotification(from: .smp, within: .seconds(2))
        #expect(machine.handle(.start) == .enableNotifications(on: .smp))
        #expect(machine.handle(.written) == .write([[
            0x08, 0x00, 0x00, 0x01,  // read (SMP v2), flags, length 1
            0x00, 0x00, 0x01, 0x06,  // OS group, sequence 1, command 6 (MCUmgr parameters)
            0xA0,                    // {}
        ]], to: .smp, type: .withoutResponse))
        #expect(machine.handle(.written) == timeout)
        // The answer arrives in two notifications: 20 bytes, then the rest.
        let answer: [UInt8] = [
            0x09, 0x00, 0x00, 0x18, 0x00, 0x00, 0x01, 0x06,  // read response OS/6, seq 1, length 24
            0xA2, 0x68, 0x62, 0x75, 0x66, 0x5F, 0x73, 0x69, 0x7A, 0x65, 0x19, 0x09, 0xAB,  // "buf_size": 2475
            0x69, 0x62, 0x75, 0x66, 0x5F, 0x63, 0x6F, 0x75, 0x6E, 0x74, 0x04,              // "buf_count": 4
        ]
        #expect(machine.handle(.notified(Array(answer[..<20]))) == timeout)
        #expect(machine.handle(.notified(Array(answer[20...]))) == .write([[
            0x08, 0x00, 0x00, 0x01,  // read, length 1
            0x00, 0x01, 0x02, 0x00,  // image group, sequence 2, command 0 (state)
            0xA0,
        ]], to: .smp, type: .withoutResponse))
        #expect(machine.parameters == SMPParameters(bufferSize: 2475, bufferCount: 4))
    }

    @Test func aLateAnswerWithAnOldSequenceNumberIsIgnored() {
        var machine = SMPUploadMachine(Self.setup(SMPUploadPlan(images: [Self.image(100, seed: 1)])))
        _ = machine.handle(.start)
        _ = machine.handle(.written)
        _ = machine.handle(.written)
        // Timed out: the same request again under sequence 2.
        #expect(machine.handle(.timedOut) == .write([[0x08, 0x00, 0x00, 0x01, 0x00, 0x00, 0x02, 0x06, 0xA0]],
                                                    to: .smp, type: .withoutResponse))
        _ = machine.handle(.written)
        // The late answer to sequence 1: ignored, keep waiting.
        let late: [UInt8] = [0x09, 0x00, 0x00, 0x01, 0x00, 0x00, 0x01, 0x06, 0xA0]
        #expect(machine.handle(.notified(late)) == .awaitNotification(from: .smp, within: .seconds(2)))
        #expect(machine.statistics.ignoredAnswers == 1)
    }

    @Test func aDeviceErrorEndsWithItsNameAndAdvice() {
        let images = [Self.image(3000, seed: 2)]
        let server = Self.server(for: images)
        server.uploadError = SMPImageError.noFreeSlot.rawValue
        let run = SMPTestRun(plan: SMPUploadPlan(images: images), server: server)
        guard case .failed(let error) = run.result else {
            Issue.record("expected a failure, got \(run.result)")
            return
        }
        #expect(error == .remote(step: .sendingFirmware, request: "image upload of image 0",
                                 status: .smp(.image(.noFreeSlot))))
        #expect(error.description.contains("IMG_MGMT_ERR_NO_FREE_SLOT"))
        // Advice dfu can follow (dfu has no erase, and Zephyr's erase refuses a slot in use too).
        #expect(error.description.contains("'dfu reset' runs it") && error.description.contains("'dfu confirm'"))
    }

    // MARK: - Whole updates against the scripted server

    @Test func testResetConfirmIsTheDefaultAndTheImageListShowsTheSwap() {
        let images = [Self.image(150_000, seed: 3)]
        let server = Self.server(for: images)
        let run = SMPTestRun(plan: SMPUploadPlan(images: images), server: server)
        #expect(run.result == .completed)
        #expect(server.primary[0] == .init(hash: images[0].imageHash, version: "2.0.0", confirmed: true))
        #expect(run.restarts == 1)
        #expect(run.marks == [.test(hash: images[0].imageHash), .confirm(hash: images[0].imageHash)])
        // Before: the old image runs; after: the new one runs, confirmed.
        #expect(run.firstImagesBefore?.first?.hash == Self.oldHash + [0])
        #expect(run.lastImagesAfter?.first { $0.slot == 0 }?.hash == images[0].imageHash)
        // buf_count 4: two requests in flight (buf_count − 2: a buffer stays free for an answer still going out).
        #expect(run.maxInFlight == 2)
        // Progress rises to the whole image and never goes back.
        #expect(run.progress.last == images[0].bytes.count)
        #expect(run.progress == run.progress.sorted())
        #expect(run.uploadedBytes.elementsEqual(images[0].bytes))
    }

    @Test(arguments: [SMPEnding.confirmThenReset, .testWithoutReset, .confirmWithoutReset])
    func otherEndings(_ ending: SMPEnding) {
        let images = [Self.image(20_000, seed: 4)]
        let server = Self.server(for: images)
        let run = SMPTestRun(plan: SMPUploadPlan(images: images, ending: ending), server: server)
        #expect(run.result == .completed)
        switch ending {
        case .confirmThenReset:
            #expect(server.primary[0] == .init(hash: images[0].imageHash, version: "2.0.0", confirmed: true))
            #expect(run.marks == [.confirm(hash: images[0].imageHash)])
        case .testWithoutReset, .confirmWithoutReset:
            #expect(run.restarts == 0)
            #expect(server.secondary[0]?.pending == true)
            #expect(server.secondary[0]?.permanent == (ending == .confirmWithoutReset))
        case .testThenConfirm:
            break
        }
    }

    @Test func bothImagesOfAMultiImageUpdateGoBeforeOneReset() {
        let images = [Self.image(40_000, seed: 5, number: 0), Self.image(25_000, seed: 6, number: 1)]
        let server = Self.server(for: images)
        let run = SMPTestRun(plan: SMPUploadPlan(images: images), server: server)
        #expect(run.result == .completed)
        #expect(run.restarts == 1)
        #expect(server.primary[0]?.hash == images[0].imageHash && server.primary[0]?.confirmed == true)
        #expect(server.primary[1]?.hash == images[1].imageHash && server.primary[1]?.confirmed == true)
        // The network core (image 1) is marked before the application core (NCSDK-34106); confirms follow the plan.
        #expect(run.marks == [.test(hash: images[1].imageHash), .test(hash: images[0].imageHash),
                              .confirm(hash: images[0].imageHash), .confirm(hash: images[1].imageHash)])
        // Progress counts both images: it ends at their sum.
        #expect(run.progress.last == images[0].bytes.count + images[1].bytes.count)
    }

    @Test func framesAreSizedByBufSizeAndSplitByTheWriteLength() {
        let images = [Self.image(10_000, seed: 7)]
        let server = Self.server(for: images)
        server.bufSize = 1024
        server.bufCount = 2
        let run = SMPTestRun(plan: SMPUploadPlan(images: images), server: server, writeLength: 244)
        #expect(run.result == .completed)
        #expect(run.largestFrame == 1024)
        #expect(run.largestWrite == 244)
        #expect(run.maxInFlight == 1)
    }

    @Test func overridesOfFrameSizeAndWindowWin() {
        let images = [Self.image(10_000, seed: 7)]
        let server = Self.server(for: images)
        let run = SMPTestRun(plan: SMPUploadPlan(images: images, frameSize: 512, window: 2), server: server)
        #expect(run.result == .completed)
        #expect(run.largestFrame == 512)
        #expect(run.maxInFlight == 2)
    }

    @Test func withoutTheParametersCommandTheFallbackIsUsed() {
        let images = [Self.image(5_000, seed: 8)]
        let server = Self.server(for: images)
        server.answersParameters = false
        let run = SMPTestRun(plan: SMPUploadPlan(images: images), server: server)
        #expect(run.result == .completed)
        #expect(run.largestFrame <= SMPParameters.fallback.bufferSize)
        #expect(run.maxInFlight == 1)
    }

    @Test func aServerOfSMPVersion1IsSpokenToInVersion1() {
        let images = [Self.image(8_000, seed: 15)]
        let server = Self.server(for: images)
        server.onlyVersion1 = true
        let run = SMPTestRun(plan: SMPUploadPlan(images: images), server: server)
        #expect(run.result == .completed)
        // On each connection (before and after the reset) only the first request went in version 2; it was
        // refused with MGMT_ERR_UNSUPPORTED_TOO_NEW and everything after it went in version 1.
        #expect(run.restarts == 1)
        #expect(server.versions.filter { $0 == .version2 }.count == 2)
        #expect(server.versions.count > 8)  // parameters, lists, 4 chunks, test, reset, confirm…
        #expect(server.primary[0]?.hash == images[0].imageHash)
    }

    @Test func aFrameTooSmallForTheFirstChunkIsRefusedBeforeSending() {
        let images = [Self.image(5_000, seed: 8)]
        let server = Self.server(for: images)
        server.bufSize = 96
        let run = SMPTestRun(plan: SMPUploadPlan(images: images), server: server)
        guard case .failed(.unsupportedDevice(let reason)) = run.result else {
            Issue.record("expected unsupportedDevice, got \(run.result)")
            return
        }
        #expect(reason.contains("buf_size 96"))
        #expect(server.chunksWritten == 0)
    }

    @Test func anImageAlreadyRunningAndConfirmedIsNotSentAgain() {
        let images = [Self.image(5_000, seed: 9)]
        let server = Self.server(for: images)
        server.primary[0] = .init(hash: images[0].imageHash, version: "2.0.0", confirmed: true)
        let run = SMPTestRun(plan: SMPUploadPlan(images: images), server: server)
        #expect(run.result == .completed)
        #expect(server.chunksWritten == 0)
        #expect(run.restarts == 0)
    }

    @Test func anImageMCUbootRefusesToBootIsReportedAfterTheReset() {
        let images = [Self.image(5_000, seed: 10)]
        let server = Self.server(for: images)
        server.failsToBoot = [images[0].imageHash]
        let run = SMPTestRun(plan: SMPUploadPlan(images: images), server: server)
        #expect(run.result == .failed(.remote(step: .smp(.imageState), request: "the image list after the reset",
                                              status: .smpImage(.notRunningAfterReset(image: 0)))))
        #expect(server.primary[0]?.hash == Self.oldHash + [0])
    }

    @Test func cancellingStopsWithoutARequestAndReportsAborted() {
        var machine = SMPUploadMachine(Self.setup(SMPUploadPlan(images: [Self.image(100, seed: 1)])))
        _ = machine.handle(.start)
        #expect(machine.handle(.cancelled) == .report(.progress(.aborted, bytes: 0)))
        #expect(machine.handle(.reported) == .fail(.aborted(step: .enablingNotifications)))
    }
}
