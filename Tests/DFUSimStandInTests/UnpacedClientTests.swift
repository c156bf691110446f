import DBus
import DFUCrypto
import DFUSimStandIn
import Glibc
import Testing

/// A client that does not pace, as a minimal third-party one would: PRN 0, every object's packets back to back
/// through the AcquireWrite socket, no first-object delay. An SDK 15–17 bootloader takes that, since it answers
/// each Execute only when the object's flash work is done (`on_data_obj_execute_request_sched`) and an object of
/// 244-byte packets fits its 17 receive buffers; so must `dfu-sim` with its default link.
@Suite(.serialized, .enabled(if: dbusDaemonInstalled, "needs dbus-daemon"))
struct UnpacedClientTests {
    @Test func aClientThatDoesNotPaceUploads200KBByteExact() async throws {
        try await withStandIn(devices: ["secure"]) { bus in
            let session = try await SecureSessionByHand(bus)
            let packet = session.packet
            let send = session.send
            let image = SecureDFUByHand.image(200 * 1024)
            let initPacket = SecureDFUByHand.initPacket(for: image)
            // 60 01 01: Create command object → success.
            #expect(try await send(SecureDFUByHand.create(0x01, size: initPacket.count)) == [0x60, 0x01, 0x01])
            let socket = try #require(
                try await bus.call(packet, BlueZNames.gattCharacteristic, "AcquireWrite", [.stringVariantDictionary([:])])
                    .first?.fileDescriptorValue)
            defer { socket.close() }
            let descriptor = try #require(socket.rawValue)
            func write(_ bytes: [UInt8]) {
                _ = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            }
            write(initPacket)
            _ = try await send(SecureDFUByHand.checksum)
            #expect(try await send(SecureDFUByHand.execute) == [0x60, 0x04, 0x01])
            var offset = 0
            while offset < image.count {
                let size = min(4096, image.count - offset)
                #expect(try await send(SecureDFUByHand.create(0x02, size: size)) == [0x60, 0x01, 0x01])
                for start in stride(from: 0, to: size, by: 244) {
                    write(Array(image[(offset + start)..<(offset + min(start + 244, size))]))
                }
                offset += size
                // 60 03 01 offset CRC: every byte of the object arrived.
                let checksum = try await send(SecureDFUByHand.checksum)
                try #require(SecureDFUByHand.readUInt32(checksum, at: 3) == offset, "object ending at \(offset)")
                #expect(SecureDFUByHand.readUInt32(checksum, at: 7) == Int(CRC32.checksum(image[0..<offset])))
                #expect(try await send(SecureDFUByHand.execute) == [0x60, 0x04, 0x01])
            }
            let report = try #require(await bus.standIn.report().devices.first)
            #expect(report.images["application"] == StandInReport.Image(bytes: image))
            #expect(report.stats.droppedPackets == 0)
            #expect(report.violations.isEmpty)
        }
    }
}
