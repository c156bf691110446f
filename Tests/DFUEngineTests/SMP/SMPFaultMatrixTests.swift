import DFUCore
import Testing

/// Every fault, alone, during a 60 000-byte test → reset → confirm update (buf_size 2475, buf_count 4:
/// three chunks in flight): the update completes, the device runs the new image confirmed, and the
/// bytes it holds are the image's.
@Suite struct SMPFaultMatrixTests {
    static let faults: [SMPFault] = [
        .dropAnswer(1), .dropAnswer(5), .dropRequest(1), .dropRequest(4), .duplicateAnswer(2), .lateAnswer(3),
        .disconnectAfter(1), .disconnectAfter(6), .resetAfter(5), .dropResetAnswer, .mismatchOnce, .coalescedAnswers,
    ]

    @Test(arguments: faults)
    func theUpdateCompletesDespite(_ fault: SMPFault) {
        let images = [SMPUploadMachineTests.image(60_000, seed: 11)]
        let server = SMPUploadMachineTests.server(for: images)
        let run = SMPTestRun(plan: SMPUploadPlan(images: images), server: server, faults: [fault])
        #expect(run.result == .completed, "\(fault)")
        #expect(server.primary[0] == .init(hash: images[0].imageHash, version: "2.0.0", confirmed: true), "\(fault)")
        #expect(run.uploadedBytes.elementsEqual(images[0].bytes), "\(fault)")
        // Progress never goes past the image.
        #expect(run.progress.allSatisfy { $0 <= images[0].bytes.count }, "\(fault)")
        // And the fault did happen, and was dealt with the way it should be.
        switch fault {
        case .dropRequest:
            #expect(run.retransmissions > 0)
        case .duplicateAnswer:
            #expect(run.ignoredAnswers > 0)
        case .disconnectAfter, .resetAfter:
            #expect(run.reconnects == 1)
        case .dropResetAnswer:
            #expect(run.restarts == 1)
        case .mismatchOnce:
            #expect(server.chunksWritten > 40)  // the image went twice
        case .dropAnswer, .lateAnswer, .coalescedAnswers:
            // Later answers carry the offset on: nothing is sent again.
            #expect(run.retransmissions == 0)
        }
    }

    @Test func aLostLinkResumesFromTheDevicesOffsetInsteadOfStartingOver() {
        let images = [SMPUploadMachineTests.image(60_000, seed: 12)]
        let server = SMPUploadMachineTests.server(for: images)
        let run = SMPTestRun(plan: SMPUploadPlan(images: images), server: server, faults: [.disconnectAfter(10)])
        #expect(run.result == .completed)
        #expect(run.reconnects == 1)
        // As many chunks written as without the fault, give or take the one cut differently at the resume
        // point: nothing already on the device is written again.
        let clean = SMPUploadMachineTests.server(for: images)
        _ = SMPTestRun(plan: SMPUploadPlan(images: images), server: clean)
        #expect(clean.chunksWritten == 25)  // 60 000 bytes in chunks of about 2 450
        #expect(server.chunksWritten <= clean.chunksWritten + 1)
    }

    @Test func twoMismatchesInARowFailWithTheHashFault() {
        let images = [SMPUploadMachineTests.image(10_000, seed: 13)]
        let run = SMPTestRun(plan: SMPUploadPlan(images: images), server: ScriptedSMPServerAlwaysMismatching(images))
        #expect(run.result == .failed(.remote(step: .sendingFirmware, request: "image upload of image 0",
                                              status: .smpImage(.hashMismatch(image: 0)))))
    }

    @Test func aDeviceThatNeverAnswersTimesOutAfterTheAttempts() {
        let images = [SMPUploadMachineTests.image(10_000, seed: 14)]
        let server = SMPUploadMachineTests.server(for: images)
        let faults = Set((1...40).map { SMPFault.dropAnswer($0) })
        let run = SMPTestRun(plan: SMPUploadPlan(images: images, attempts: 3), server: server, faults: faults)
        #expect(run.result == .failed(.timeout(step: .sendingFirmware, after: .seconds(2))))
    }
}

/// A server whose every complete upload reports `match` false.
func ScriptedSMPServerAlwaysMismatching(_ images: [SMPUploadImage]) -> ScriptedSMPServer {
    let server = SMPUploadMachineTests.server(for: images)
    server.alwaysMismatch = true
    return server
}
