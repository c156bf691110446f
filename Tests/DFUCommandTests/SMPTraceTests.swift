@testable import DFUCommand
import DFUCore
import DFUSimulator
import Foundation
import Testing

/// Issue 26 point 9: the `-vv` trace joins SMP frames from their pieces and names requests and answers.
@Suite struct SMPTraceTests {
    static let device = SimulatedRig.firstAddress

    @Test func theTraceDecodesWholeRequestsAndAnswersByName() async throws {
        let rig = SimulatedRig([Self.device: SMPFirmware.device()])
        let run = await rig.dfu(["upload", SMPFirmware.image, "-d", Self.device, "--smp-chunk", "512", "--no-reset", "-vv"])
        #expect(run.code == .success, "\(run.error)")
        let lines = run.error.split(separator: "\n")
        #expect(!run.error.contains("undecoded"), "\(run.error)")
        let requests = lines.filter { $0.contains("→ SMP (MCUmgr):") }
        let answers = lines.filter { $0.contains("← SMP (MCUmgr):") }
        // One line per frame: as many requests as upload requests written, each named.
        #expect(requests.contains { $0.contains("→ SMP (MCUmgr): image upload off 0, ") && $0.contains("len \(SMPFirmware.imageBytes.count), sha") })
        #expect(requests.allSatisfy { $0.contains("(seq ") && !$0.contains("bytes of an SMP frame") }, "\(requests)")
        #expect(answers.contains { $0.contains("← SMP (MCUmgr): image upload answer: upload: off ") }, "\(answers)")
        #expect(answers.contains { $0.contains("← SMP (MCUmgr): image test/confirm answer: images [") }, "\(answers)")
        // A 512-byte frame takes more than one write: one line names the writes it took.
        #expect(requests.contains { $0.hasSuffix(" writes)") }, "\(requests)")
        let sentFrames = rig.writes(to: .smp).count
        #expect(requests.count < sentFrames, "\(requests.count) lines for \(sentFrames) writes")
    }

    @Test func pieceByPieceAFrameIsOneLine() {
        let tracer = TransportTracer()
        let bytes = (try? SMPRequest.echo("hello, SMP").frame(sequence: 7).bytes) ?? []
        #expect(tracer.lines(for: .write(.smp, Array(bytes.prefix(5)))).isEmpty)
        #expect(tracer.lines(for: .write(.smp, Array(bytes.dropFirst(5)))) == ["→ SMP (MCUmgr): echo (seq 7, 2 writes)"])
        let answer = SMPFrame(header: SMPHeader(operation: .writeResponse, version: .version2, length: 0, group: .os, sequence: 7, command: 0),
                              body: [0xA1, 0x61, 0x72, 0x62, 0x68, 0x69])  // {"r": "hi"}
        #expect(tracer.lines(for: .notification(DFUNotification(endpoint: .smp, bytes: answer.bytes)))
                == ["← SMP (MCUmgr): echo answer: echo \"hi\" (seq 7)"])
    }
}
