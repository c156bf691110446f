import CBOR
import DFUCore
import DFUSimStandIn
import Testing

/// Zephyr's SMP server as Zephyr builds it by default (`smp,reassembly=no,buf_size=384`): without
/// `CONFIG_MCUMGR_TRANSPORT_BT_REASSEMBLY`, `smp_bt_chr_write` (`subsys/mgmt/mcumgr/transport/src/smp_bt.c`) hands
/// every ATT write to SMP as one packet, and `smp_process_request_packet` (`subsys/mgmt/mcumgr/smp/src/smp.c`) reads
/// its first 8 bytes as a header: a header announcing more than the packet holds is answered MGMT_ERR_ECORRUPT
/// (`smp_on_err`) under that header. Driven by hand over D-Bus, writes of 244 bytes (ATT MTU 247).
@Suite(.serialized, .enabled(if: dbusDaemonInstalled, "needs dbus-daemon"))
struct SMPSplitFrameStandInTests {
    @Test func aFrameSplitOverTwoWritesGetsTwoECORRUPTAnswersAndChangesNothing() async throws {
        try await withStandIn(devices: ["smp,reassembly=no,buf_size=384"]) { bus in
            let session = try await SMPSessionByHand(bus, writeLength: 244)
            // The first upload chunk filled to buf_size: header (8) + {"image": 0, "len": 10000, "off": 0,
            // "sha": 32 × 0x11, "data": …} where data is 0x78 ('x') bytes from frame byte 74 to the end (384).
            var chunk = SMPUploadChunk(image: 0, length: 10_000, offset: 0, sha: [UInt8](repeating: 0x11, count: 32), data: [])
            chunk.data = [UInt8](repeating: 0x78, count: chunk.maxDataLength(frameLimit: 384))
            let frame = try session.frame(.upload(chunk))
            #expect(frame.bytes.count == 384)
            try await session.write(frame.bytes)  // 244 + 140 bytes

            // Write 1: its own header, 376 announced, 236 there → ECORRUPT: write response, image/1, its sequence.
            let first = try await session.nextFrame()
            #expect(first.header.operation == .writeResponse)
            #expect(first.header.group == .image && first.header.command == 1)
            #expect(first.header.sequence == frame.header.sequence)
            #expect(try first.decodedBody() == .map(["rc": .int(9)]))
            // Write 2 begins with 78 78 78 78 78 78 78 78, read as a header: OP 0 (read), Ver 3 (answered as SMP
            // version 2), length 0x7878 with 132 bytes there → ECORRUPT: read response, group 0x7878, sequence 0x78,
            // command 0x78.
            let second = try await session.nextFrame()
            #expect(second.header.operation == .readResponse)
            #expect(second.header.version == .version2)
            #expect(second.header.group == SMPGroup(rawValue: 0x7878))
            #expect(second.header.sequence == 0x78 && second.header.command == 0x78)
            #expect(try second.decodedBody() == .map(["rc": .int(9)]))

            // Nothing was written to the slot: the image list is still the running image alone.
            guard case .imageState(let images) = try await session.send(.imageState) else {
                Issue.record("no image list")
                return
            }
            #expect(images.map(\.slot) == [0])
        }
    }

    @Test func aWholeFrameInOneWriteIsHandled() async throws {
        try await withStandIn(devices: ["smp,reassembly=no,buf_size=384"]) { bus in
            let session = try await SMPSessionByHand(bus, writeLength: 244)
            #expect(try await session.send(.echo("short")) == .echo("short"))
            #expect(try await session.send(.parameters) == .parameters(SMPParameters(bufferSize: 384, bufferCount: 4)))
        }
    }
}
