import DBus
import DFUCrypto
import DFUSimStandIn
import Foundation
import Glibc
import Testing

/// Opt-in (`DFU_SIM_BENCHMARK=1`): a 500 KB Secure upload by hand through the stand-in in this
/// process, packets through the AcquireWrite socket or by WriteValue(type=command); prints wall and
/// CPU time (client and stand-in together).
@Suite(
    .serialized, .enabled(if: dbusDaemonInstalled && ProcessInfo.processInfo.environment["DFU_SIM_BENCHMARK"] == "1"))
struct StandInBenchmarkTests {
    @Test(arguments: [true, false])
    func fiveHundredKilobyteUpload(throughSocket: Bool) async throws {
        try await withStandIn(devices: ["secure,max_image=1048576"]) { bus in
            let session = try await SecureSessionByHand(bus)
            let packet = session.packet
            let send = session.send
            let image = SecureDFUByHand.image(500 * 1024)
            let initPacket = SecureDFUByHand.initPacket(for: image)
            let command = DBusValue.stringVariantDictionary(["type": .string("command")])
            let startWall = ContinuousClock.now
            let startCPU = Self.cpuTime()
            _ = try await send(SecureDFUByHand.create(0x01, size: initPacket.count))
            _ = try await bus.call(
                packet, BlueZNames.gattCharacteristic, "WriteValue", [.byteArray(initPacket), command])
            _ = try await send(SecureDFUByHand.checksum)
            _ = try await send(SecureDFUByHand.execute)
            var socket: OwnedFileDescriptor?
            if throughSocket {
                socket = try await bus.call(
                    packet, BlueZNames.gattCharacteristic, "AcquireWrite", [.stringVariantDictionary([:])]
                )
                .first?.fileDescriptorValue
            }
            var offset = 0
            while offset < image.count {
                let size = min(4096, image.count - offset)
                _ = try await send(SecureDFUByHand.create(0x02, size: size))
                if offset == 0 { try await Task.sleep(for: .milliseconds(400)) }
                var sent = 0
                while sent < size {
                    let chunk = Array(image[(offset + sent)..<(offset + min(sent + 244, size))])
                    if let descriptor = socket?.rawValue {
                        _ = chunk.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                    } else {
                        _ = try await bus.call(
                            packet, BlueZNames.gattCharacteristic, "WriteValue", [.byteArray(chunk), command])
                    }
                    sent += chunk.count
                }
                offset += size
                let checksum = try await send(SecureDFUByHand.checksum)
                try #require(SecureDFUByHand.readUInt32(checksum, at: 3) == offset)
                _ = try await send(SecureDFUByHand.execute)
            }
            let wall = ContinuousClock.now - startWall
            let cpu = Self.cpuTime() - startCPU
            socket?.close()
            let stats = try #require(await bus.standIn.report().devices.first?.stats)
            print(
                "BENCHMARK \(throughSocket ? "AcquireWrite" : "WriteValue(command)"): 500 KB in \(wall), CPU \(cpu) s, modelled \(stats.modelledMilliseconds) ms, dropped \(stats.droppedPackets)"
            )
        }
    }

    /// User + system CPU seconds of this process.
    static func cpuTime() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
    }
}
