import DFUCore
import DFUSimCommand
@testable import DFUSimStandIn
import DFUSimulator
import Testing

/// The SMP kinds' `--device` keys, and how the stand-in counts an SMP client's requests.
@Suite struct SMPSpecAndTrafficTests {
    /// The Zephyr target a spec runs.
    static func target(_ text: String) throws -> SimulatedZephyrTarget {
        let spec = try SimulatedDeviceSpec(parsing: text)
        guard case .zephyr(let target) = spec.profile.application, case .mcuboot = spec.profile.bootloader else {
            throw StandInSpecError("\(text) is not a Zephyr target")
        }
        return target
    }

    @Test func theSMPKindsRunZephyrAboveMCUbootNamedZephyr() throws {
        let smp = try Self.target("smp")
        #expect(smp.configuration.name == "Zephyr")
        #expect(smp.configuration.images.count == 1)
        #expect(!smp.configuration.requiresEncryption)
        #expect(try Self.target("smp-auth").configuration.requiresEncryption)
        let dual = try Self.target("smp-nrf5340,name=Dual")
        #expect(dual.configuration.images.count == 2)
        #expect(dual.configuration.images.map(\.revertible) == [true, false])
        #expect(dual.advertisedName == "Dual")
        let spec = try SimulatedDeviceSpec(parsing: "smp,address=C0:11:22:33:44:55,rssi=-70", index: 3)
        #expect(spec.kind == .smp && spec.kind.isSMP && !spec.kind.startsInBootloader)
        #expect(spec.profile.address.description == "C0:11:22:33:44:55")
        #expect(spec.rssi == -70)
    }

    @Test func zephyrKeysReachTheConfiguration() throws {
        let target = try Self.target(
            "smp,buf_size=1024,buf_count=6,reassembly=no,erase_progressively=yes,image_check=no,mcumgr_params=no,"
                + "reset_ms=20,page_size=2048,slot_size=0x40000,version=3.1.4.15,duplicate_response=2:5,"
                + "unanswered_response=3,reset_after_upload_bytes=4096")
        let configuration = target.configuration
        #expect(configuration.bufferSize == 1024)
        #expect(configuration.bufferCount == 6)
        #expect(!configuration.reassembly)
        #expect(configuration.eraseProgressively)
        #expect(!configuration.imageCheck)
        #expect(!configuration.answersParameters)
        #expect(configuration.resetDelay == .milliseconds(20))
        #expect(configuration.pageSize == 2048)
        #expect(configuration.images[0].slotSize == 0x40000)
        #expect(configuration.duplicatedResponses == [2, 5])
        #expect(configuration.unansweredResponses == [3])
        #expect(configuration.resetAfterUploadBytes == 4096)
        #expect(target.imageList.first?.version == "3.1.4.15")
    }

    @Test(arguments: [
        ("smp,hw_version=52", "unknown key 'hw_version' in --device smp,hw_version=52"),
        ("smp-auth,uuid.secure-service=FE59", "unknown key 'uuid.secure_service'"),
        ("smp,buf_count=1", "buf_count=1 must be 2 to 64"),
        ("smp,buf_size=10", "buf_size=10 must be 64 to 65535"),
        ("smp,version=1.x.0", "version=1.x.0 must be MAJOR.MINOR.REVISION or MAJOR.MINOR.REVISION.BUILD"),
        ("smp,page_size=3000", "page_size=3000 must be a power of two"),
        ("smp,public_key=/nonexistent/key.pem", "public_key=/nonexistent/key.pem: cannot read it"),
        ("smp,duplicate_response=0", "duplicate_response=0: '0' is not a positive number"),
        ("smp,reassembly=maybe", "reassembly=maybe is not yes or no"),
        ("smp-nrf", "unknown device kind 'smp-nrf'"),
    ])
    func badSMPKeysSayWhatIsWrong(spec: String, message: String) {
        #expect {
            _ = try SimulatedDeviceSpec(parsing: spec)
        } throws: { error in
            (error as? StandInSpecError)?.message.contains(message) == true
        }
    }

    // MARK: - Counting

    static func frame(_ request: SMPRequest, sequence: UInt8 = 0) throws -> [UInt8] {
        try request.frame(sequence: sequence).bytes
    }

    /// An answer frame to `request`: the same frame with the response operation (op + 1 in the header's
    /// first byte: read 0 → 1, write 2 → 3).
    static func answer(to request: SMPRequest, sequence: UInt8 = 0) throws -> [UInt8] {
        var bytes = try frame(request, sequence: sequence)
        bytes[0] += 1
        return bytes
    }

    @Test func requestsJoinedFromPiecesCountOnceAndAnswersEndTheirFlight() throws {
        var counter = SMPTrafficCounter()
        let echo = try Self.frame(.echo(String(repeating: "x", count: 50)))
        counter.requestBytes(Array(echo[0..<20]))
        #expect(counter.requests == 0, "a frame counts once whole")
        counter.requestBytes(Array(echo[20...]))
        counter.requestBytes(try Self.frame(.imageState, sequence: 1))
        #expect(counter.requests == 2)
        #expect(counter.maximumInFlight == 2)
        counter.responseBytes(try Self.answer(to: .echo("x")))
        counter.responseBytes(try Self.answer(to: .imageState, sequence: 1))
        counter.requestBytes(try Self.frame(.reset, sequence: 2))
        #expect(counter.requests == 3)
        #expect(counter.maximumInFlight == 2, "one waits at a time after the answers")
    }

    @Test func aChunkForAnOffsetOfTheSameUploadIsARetransmissionAndANewUploadStartsAfresh() throws {
        var counter = SMPTrafficCounter()
        let sha = [UInt8](repeating: 0xAB, count: 32)
        let first = SMPRequest.upload(SMPUploadChunk(image: 0, length: 4096, offset: 0, sha: sha, data: [1, 2, 3]))
        let next = SMPRequest.upload(SMPUploadChunk(offset: 3, data: [4, 5]))
        counter.requestBytes(try Self.frame(first))
        counter.requestBytes(try Self.frame(next))
        counter.requestBytes(try Self.frame(next))
        #expect(counter.retransmissions == 1)
        // The same file again from offset 0 (a resume asks where to go on): offset 0 was received.
        counter.requestBytes(try Self.frame(first))
        #expect(counter.retransmissions == 2)
        // Another file: a new upload.
        let other = SMPRequest.upload(
            SMPUploadChunk(image: 0, length: 4096, offset: 0, sha: [UInt8](repeating: 0xCD, count: 32), data: [9]))
        counter.requestBytes(try Self.frame(other))
        #expect(counter.retransmissions == 2)
        #expect(counter.requests == 5)
    }

    @Test func aDroppedLinkEndsEveryFlightAndForgetsPartialFrames() throws {
        var counter = SMPTrafficCounter()
        counter.requestBytes(try Self.frame(.echo("a")))
        let partial = try Self.frame(.echo("b"), sequence: 1)
        counter.requestBytes(Array(partial.prefix(5)))
        counter.linkDropped()
        counter.requestBytes(try Self.frame(.echo("c"), sequence: 2))
        #expect(counter.requests == 2)
        #expect(counter.maximumInFlight == 1)
    }
}
