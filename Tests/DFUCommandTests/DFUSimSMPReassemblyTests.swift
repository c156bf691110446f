import DFUCore
import Foundation
import Testing
import DFUFormats

/// `dfu upload` with its default options to Zephyr's SMP server as Zephyr builds it by default: without
/// `CONFIG_MCUMGR_TRANSPORT_BT_REASSEMBLY` and with `MCUMGR_TRANSPORT_NETBUF_SIZE` 384 (`smp,reassembly=no,buf_size=384`
/// on the stand-in), where each ATT write is one SMP packet (`smp_bt_chr_write` in `smp_bt.c`) and a frame split over
/// two writes is answered MGMT_ERR_ECORRUPT; and to the `smp_svr` sample with its Bluetooth overlay (reassembly on,
/// buf_size 2475). The stand-in's link has ATT MTU 247: writes of 244 bytes.
@Suite(.enabled(if: DFUSimRun.available && MCUbootFiles.present)) struct DFUSimSMPReassemblyTests {
    static let address = "C0:FF:EE:00:00:10"
    /// An imgtool-signed MCUboot image (ECDSA P-256, version 1.2.3+4, 3664 bytes).
    static let image = MCUbootFiles.path("images/ecdsa-p256.bin")

    /// The image's SHA256 TLV in lower-case hex, as the image list shows it.
    static func imageHashHex() throws -> String {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: image)))
        let hash = try #require(try MCUbootImage(bytes: bytes, name: "ecdsa-p256.bin").imageHash)
        return hash.map { String($0 >> 4, radix: 16) + String($0 & 0x0F, radix: 16) }.joined()
    }

    @Test func aDeviceThatDoesNotReassembleIsUpdatedWithTheDefaultOptionsAndItsImageListShowsTheImage() async throws {
        let dfu = TestData.dfuExecutable.path
        let script = "\"$0\" upload \"$1\" -d \(Self.address) -v && \"$0\" images -d \(Self.address) --json"
        let run = try await DFUSimRun.run(devices: ["smp,reassembly=no,buf_size=384"],
                                          command: ["/bin/sh", "-c", script, dfu, Self.image])
        #expect(run.status == 0, "\(run.error)")
        let last = try #require(run.output.split(separator: "\n").last)
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        let running = try #require((answer["slots"] as? [[String: Any]])?.first { $0["slot"] as? Int == 0 }, "\(run.output)")
        #expect(running["hash"] as? String == (try Self.imageHashHex()))
        #expect(running["version"] as? String == "1.2.3+4", "MCUboot's form of Zephyr's \"1.2.3.4\"")
        #expect(running["active"] as? Bool == true && running["confirmed"] as? Bool == true)
        // -v names the framing: every frame within one 244-byte write, and why.
        #expect(run.error.contains("\(Self.address): SMP frames of at most 244 bytes, one write each: the device does not "
                                   + "reassemble (a frame split over two writes was answered MGMT_ERR_ECORRUPT)"), "\(run.error)")
    }

    @Test func aDeviceThatReassemblesGetsFramesOfItsBufSizeAndVerboseOutputSaysSo() async throws {
        let run = try await DFUSimRun.run(devices: ["smp"], ["upload", Self.image, "-d", Self.address, "-v"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error.contains("\(Self.address): SMP frames of at most 2475 bytes over writes of 244: the device "
                                   + "reassembles (a frame split over two writes was answered whole)"), "\(run.error)")
        let slots = run.device(Self.address)?["slots"] as? [[String: Any]] ?? []
        #expect(slots.first { $0["slot"] as? Int == 0 }?["hash"] as? String == (try Self.imageHashHex()))
    }

    @Test func smpChunkFixesTheFrameSizeWithoutAskingTheDevice() async throws {
        let run = try await DFUSimRun.run(devices: ["smp,reassembly=no,buf_size=384"],
                                          ["upload", Self.image, "-d", Self.address, "-v", "--smp-chunk", "200"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error.contains("\(Self.address): SMP frames of at most 200 bytes, one write each (--smp-chunk)"), "\(run.error)")
    }
}
