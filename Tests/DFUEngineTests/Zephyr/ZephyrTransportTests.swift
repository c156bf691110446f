import CBOR
import DFUCore
import DFUCrypto
import DFUSimulator
import Testing

/// The SMP transport of the simulated target: reassembly and buffers (`subsys/mgmt/mcumgr/transport/src/smp_bt.c`,
/// `smp_reassembly.c`), notifications split at the ATT payload, MCUmgr parameters, flash timing, encryption,
/// and the target's faults.
@Suite struct ZephyrTransportTests {
    @Test func theParametersAreBufSizeAndBufCount() throws {
        var device = ZephyrTargetHarness()
        // os_mgmt_mcumgr_params: MCUMGR_TRANSPORT_NETBUF_SIZE and _COUNT.
        #expect(try device.send(.parameters) == .parameters(SMPParameters(bufferSize: 2475, bufferCount: 4)))
    }

    @Test func withoutTheParametersCommandTheAnswerIsNotSupported() throws {
        var configuration = ZephyrTargetConfiguration()
        configuration.answersParameters = false
        var device = ZephyrTargetHarness(configuration)
        #expect(try device.send(.parameters) == .failure(.management(.notSupported, reason: nil)))
    }

    @Test func echoAnswersTheText() throws {
        var device = ZephyrTargetHarness()
        #expect(try device.send(.echo("hello")) == .echo("hello"))
    }

    @Test func aFrameSpanningSeveralWritesIsReassembledByItsHeaderLength() throws {
        var device = ZephyrTargetHarness()
        device.attPayload = 20
        let writes = try device.writes(for: .echo(String(repeating: "x", count: 100)))
        #expect(writes.count > 5)
        let answers = try device.answers(to: writes)
        #expect(answers.count == 1)
    }

    /// `smp_bt_chr_write` without reassembly hands each write to `smp_process_request_packet` as one packet, which
    /// reads its first 8 bytes as a header and answers MGMT_ERR_ECORRUPT under it when it announces more bytes than
    /// the packet holds.
    @Test func withoutReassemblyEveryWriteOfASplitFrameIsAnsweredECORRUPTUnderTheHeaderItStartsWith() throws {
        var configuration = ZephyrTargetConfiguration()
        configuration.reassembly = false
        var device = ZephyrTargetHarness(configuration)
        device.attPayload = 40
        // 113 bytes: header (8), {"d": 100 × 'x'} as a1 61 64 78 64 then the text: writes of 40, 40, 33.
        let writes = try device.writes(for: .echo(String(repeating: "x", count: 100)))
        #expect(writes.map(\.count) == [40, 40, 33])
        let answers = try device.answers(to: writes)
        #expect(answers.count == 3)
        // The first write under its own header: write response, OS group, echo, its sequence.
        let request = try SMPHeader(bytes: writes[0])
        #expect(answers.first?.header == SMPHeader(operation: .writeResponse, version: .version2, length: answers.first?.header.length ?? 0,
                                                   group: .os, sequence: request.sequence, command: 0))
        // Every other write starts with 78 78 78 78 78 78 78 78: OP 0 (read), Ver 3 (answered as version 2), length
        // 0x7878, group 0x7878, sequence 0x78, command 0x78.
        for answer in answers.dropFirst() {
            #expect(answer.header.operation == .readResponse && answer.header.version == .version2)
            #expect(answer.header.group == SMPGroup(rawValue: 0x7878) && answer.header.sequence == 0x78 && answer.header.command == 0x78)
        }
        #expect(try answers.allSatisfy { try $0.decodedBody() == .map(["rc": .int(9)]) })
        #expect(device.target.droppedFrames == 3)
        device.attPayload = 495
        #expect(try device.send(.echo("short")) == .echo("short"))
    }

    @Test func withoutReassemblyAWriteShorterThanAHeaderIsDroppedWithoutAnAnswer() throws {
        var configuration = ZephyrTargetConfiguration()
        configuration.reassembly = false
        var device = ZephyrTargetHarness(configuration)
        // smp_read_hdr: fewer than 8 bytes is MGMT_ERR_EINVAL → ECORRUPT with no valid header: nothing is sent.
        #expect(try device.answers(to: [[0x02, 0x00, 0x00, 0x00]]).isEmpty)
        #expect(device.target.droppedFrames == 1)
    }

    @Test func withoutReassemblyAResponseWrittenToTheServerIsAnsweredNotSupported() throws {
        var configuration = ZephyrTargetConfiguration()
        configuration.reassembly = false
        var device = ZephyrTargetHarness(configuration)
        // A write response frame (OP 3), OS group, echo, sequence 5, empty map: no SMP client in smp_svr → ENOTSUP.
        let answers = try device.answers(to: [[0x0B, 0x00, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0xA0]])
        #expect(answers.count == 1)
        #expect(answers.first?.header.operation == .writeResponse && answers.first?.header.sequence == 5)
        #expect(try answers.first?.decodedBody() == .map(["rc": .int(8)]))
    }

    @Test func aFrameLongerThanBufSizeIsDroppedWithValueNotAllowed() throws {
        var device = ZephyrTargetHarness()
        let writes = try device.writes(for: .echo(String(repeating: "y", count: 3000)))
        let caused = device.write(writes, type: .request)
        // The first write announces more than a buffer holds; the writes after it are no frame either.
        #expect(device.attErrors.first == 0x13)
        #expect(caused.isEmpty)
    }

    @Test func answersLongerThanTheATTPayloadComeInSeveralNotifications() throws {
        var device = ZephyrTargetHarness()
        device.attPayload = 20
        let caused = device.write(try device.writes(for: .imageState))
        // smp_bt_tx_pkt: chunks of the link's MTU − 3, no extra framing.
        #expect(caused.count > 1)
        #expect(caused.allSatisfy { $0.bytes.count <= 20 })
    }

    @Test func aRequestArrivingWhenEveryBufferIsBusyIsLost() throws {
        var device = ZephyrTargetHarness()
        let image = zephyrImage(2, body: 100_000)
        // Each chunk's flash writes keep the work queue busy; the fourth request arrives with all four buffers held
        // (one in work and its answer, two waiting): buf_count − 1 requests fit.
        var writes: [[UInt8]] = []
        var offset = 0
        for index in 0..<4 {
            var chunk = SMPUploadChunk(offset: offset, data: [])
            if index == 0 { chunk = SMPUploadChunk(length: image.count, offset: 0, sha: SHA256.digest(image), data: []) }
            chunk.data = Array(image[offset..<(offset + chunk.maxDataLength(frameLimit: 2475))])
            offset += chunk.data.count
            writes += try device.writes(for: .upload(chunk))
        }
        let answers = try device.answers(to: writes)
        #expect(answers.count == 3)
        #expect(device.target.droppedFrames > 0)
    }

    /// Upload requests for `count` chunks of buf_size from the start of `image`, each frame as its writes.
    private func chunkRequests(_ device: inout ZephyrTargetHarness, _ image: [UInt8], count: Int) throws -> [[[UInt8]]] {
        var frames: [[[UInt8]]] = []
        var offset = 0
        for index in 0..<count {
            var chunk = SMPUploadChunk(offset: offset, data: [])
            if index == 0 { chunk = SMPUploadChunk(length: image.count, offset: 0, sha: SHA256.digest(image), data: []) }
            chunk.data = Array(image[offset..<(offset + chunk.maxDataLength(frameLimit: 2475))])
            offset += chunk.data.count
            frames.append(try device.writes(for: .upload(chunk)))
        }
        return frames
    }

    /// Z3: `smp_bt_tx_pkt` waits for the answer's notification to complete before the request and the answer give
    /// their buffers back. Three requests in flight (buf_count 4): the fourth, sent the moment the first answer
    /// arrives, finds request 1, its answer, requests 2 and 3 holding all four, and is lost without an answer; sent
    /// once that answer is acknowledged, it is taken.
    @Test func aRequestSentOnAnAnswerIsLostWhileThatAnswerIsUnacknowledged() throws {
        var device = ZephyrTargetHarness()
        device.acknowledgement = .milliseconds(31)
        let image = zephyrImage(2, body: 100_000)
        let frames = try chunkRequests(&device, image, count: 5)
        let first = try #require(device.write(frames[0] + frames[1] + frames[2]).first)
        device.now = first.at
        #expect(device.write(frames[3]).isEmpty)
        // Its first write found no buffer; the ones after it, no frame start, are dropped too.
        #expect(device.target.droppedFrames == frames[3].count)
        device.now = first.at + .milliseconds(31)
        // The work queue, free again, takes request 2; request 3 waits: with request 4's buffer, four again.
        #expect(device.write(frames[3]).count == 1)
        #expect(device.target.droppedFrames == frames[3].count)
    }

    /// With two in flight (dfu's buf_count − 2), the request sent on an answer finds a buffer while that answer is
    /// still unacknowledged: request 1, its answer and request 2 hold three of four.
    @Test func aWindowOfTwoLeavesABufferForTheRequestSentOnAnAnswer() throws {
        var device = ZephyrTargetHarness()
        device.acknowledgement = .milliseconds(31)
        let image = zephyrImage(2, body: 100_000)
        let frames = try chunkRequests(&device, image, count: 3)
        let first = try #require(device.write(frames[0] + frames[1]).first)
        device.now = first.at
        #expect(device.write(frames[2]).count == 1)
        #expect(device.target.droppedFrames == 0)
    }

    /// The work queue takes the next request only once the answer before is acknowledged, and a long answer's
    /// pieces go one acknowledgement apart (`smp_bt_tx_pkt` takes `smp_notify_sem` after each).
    @Test func eachPieceOfAnAnswerWaitsForTheOneBeforeToBeAcknowledged() throws {
        var device = ZephyrTargetHarness()
        device.attPayload = 20
        device.acknowledgement = .milliseconds(31)
        let pieces = device.write(try device.writes(for: .imageState))
        #expect(pieces.count > 1)
        for (earlier, later) in zip(pieces, pieces.dropFirst()) {
            #expect(later.at - earlier.at == .milliseconds(31))
        }
        let last = try #require(pieces.last)
        let echo = try #require(device.write(try device.writes(for: .echo("next"))).first)
        // The echo came in with the first piece but is worked on after the last piece's acknowledgement.
        #expect(echo.at >= last.at + .milliseconds(31))
    }

    @Test func erasingBeforeTheUploadDelaysOnlyTheFirstAnswer() throws {
        // Without IMG_ERASE_PROGRESSIVELY, img_mgmt_upload erases the image's length (and the trailer page) at
        // offset 0 when the slot is not blank: 100 KB → 26 pages of 85 ms.
        var configuration = ZephyrTargetConfiguration()
        var device = ZephyrTargetHarness(configuration)
        let image = zephyrImage(2, body: 100_000)
        _ = try device.upload(image)
        let start = device.now
        _ = try device.upload(zephyrImage(3, body: 100_000), stopAfter: 1)
        let firstAnswer = device.now - start
        #expect(firstAnswer > .milliseconds(26 * 85) && firstAnswer < .milliseconds(27 * 85 + 50))
        configuration.eraseProgressively = true
        var progressive = ZephyrTargetHarness(configuration)
        _ = try progressive.upload(image)
        let before = progressive.now
        _ = try progressive.upload(zephyrImage(3, body: 100_000), stopAfter: 1)
        // IMG_ERASE_PROGRESSIVELY: only the first page is erased for the first chunk.
        #expect(progressive.now - before < .milliseconds(2 * 85 + 50))
    }

    @Test func subscribingNeedsABondWhenTheCharacteristicRequiresEncryption() throws {
        var configuration = ZephyrTargetConfiguration()
        configuration.requiresEncryption = true
        let target = SimulatedZephyrTarget(configuration: configuration)
        let characteristic = ZephyrTargetHarness.characteristic
        #expect(target.subscriptionError(for: characteristic, isBonded: false) == .insufficientAuthentication)
        #expect(target.subscriptionError(for: characteristic, isBonded: true) == nil)
        var device = ZephyrTargetHarness(configuration)
        #expect(try device.answers(to: try device.writes(for: .echo("a"))).isEmpty)
        #expect(device.target.refusedWrites == 1)
        device.isBonded = true
        #expect(try device.send(.echo("a")) == .echo("a"))
    }

    @Test func aDuplicatedAnswerIsSentTwiceAndAnUnansweredOneNever() throws {
        var configuration = ZephyrTargetConfiguration()
        configuration.duplicatedResponses = [1]
        configuration.unansweredResponses = [2]
        var device = ZephyrTargetHarness(configuration)
        #expect(try device.answers(to: try device.writes(for: .echo("1"))).count == 2)
        #expect(try device.answers(to: try device.writes(for: .echo("2"))).isEmpty)
        #expect(try device.answers(to: try device.writes(for: .echo("3"))).count == 1)
    }

    @Test func aResetMidUploadLosesTheUploadStateButNotTheImages() throws {
        var configuration = ZephyrTargetConfiguration()
        configuration.resetAfterUploadBytes = 10_000
        var device = ZephyrTargetHarness(configuration)
        let image = zephyrImage(2, body: 50_000)
        let sha = SHA256.digest(image)
        #expect(throws: ZephyrTargetHarness.HarnessError.answers(0)) { try device.upload(image, sha: sha) }
        #expect(device.resets == 1)
        // g_img_mgmt_state is in RAM: after the reset a continuation is answered with offset 0, and the same sha
        // does not resume (no upload in progress).
        let continuation = try device.send(.upload(SMPUploadChunk(offset: 9_000, data: Array(image[9_000..<9_400]))))
        #expect(continuation == .upload(offset: 0, match: nil))
        #expect(try device.state().first?.version == "1.0.0")
        #expect(try device.upload(image, sha: sha) == .upload(offset: image.count, match: true))
    }
}
