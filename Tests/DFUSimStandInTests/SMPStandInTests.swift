import DBus
import DFUCore
import DFUCrypto
import DFUFormats
import DFUSimStandIn
import DFUSimulator
import Glibc
import TestSupport
import Testing

/// The SMP kinds on the stand-in, driven by hand over D-Bus with frames from DFUCore's codec: the SMP
/// service as Zephyr's `smp_bt.c` declares it, answers split at ATT MTU − 3, an upload, test, reset (the link
/// drops, MCUboot swaps, the device comes back) and confirm, and the report's slots and SMP statistics.
@Suite(.serialized, .enabled(if: dbusDaemonInstalled, "needs dbus-daemon"))
struct SMPStandInTests {
    /// An MCUboot image of version 2.0.0 (header 0x200, body, SHA256 TLV), as `imgtool sign` without a key makes it.
    static let newImage = SimulatedMCUbootImageBuilder(version: (2, 0, 0, 0)).image(bodySize: 5000, seed: 9)

    /// The image's SHA256 TLV: what the image list shows and test/confirm name it by.
    static var newImageHash: [UInt8] {
        get throws { try #require(try MCUbootImage(bytes: newImage, name: "new").imageHash) }
    }

    /// `smp_bt.c` `SMP_BT_ATTRS`: one primary service, one characteristic with write without response and
    /// notify (and its CCCD); advertised as `smp_svr` does, named "Zephyr".
    @Test func theSMPServiceHasOneWriteWithoutResponseAndNotifyCharacteristic() async throws {
        try await withStandIn(devices: ["smp"]) { bus in
            let device = try await bus.discover("C0:FF:EE:00:00:10", uuids: [SMPSessionByHand.serviceUUID])
            #expect(try await bus.property("Name", of: BlueZNames.device, at: device).stringValue == "Zephyr")
            #expect(
                try await bus.property("UUIDs", of: BlueZNames.device, at: device).stringArrayValue == [
                    SMPSessionByHand.serviceUUID
                ])
            try await bus.connect(device)
            let objects = try await bus.client.managedObjects(destination: bus.service)
            let characteristic = try #require(
                try await bus.characteristics(of: device)[SMPSessionByHand.characteristicUUID])
            let properties = try #require(objects[characteristic]?[BlueZNames.gattCharacteristic])
            #expect(properties["Flags"]?.stringArrayValue == ["write-without-response", "notify"])
            #expect(properties["WriteAcquired"]?.boolValue == false)
            #expect(properties["NotifyAcquired"]?.boolValue == false)
            // GATT service (0x000A–0x000D), then the SMP service at 0x000E: declaration 0x000F, value 0x0010,
            // CCCD 0x0011.
            #expect(characteristic.rawValue == device.rawValue + "/service000e/char000f")
            #expect(objects[try characteristic.appending("desc0011")]?[BlueZNames.gattDescriptor] != nil)
        }
    }

    @Test func echoAndTheImageListAnswerThroughWriteValueAndStartNotify() async throws {
        try await withStandIn(devices: ["smp"]) { bus in
            let session = try await SMPSessionByHand(bus)
            #expect(try await session.send(.echo("hello")) == .echo("hello"))
            guard case .imageState(let images) = try await session.send(.imageState) else {
                Issue.record("no image list")
                return
            }
            #expect(images.count == 1)
            #expect(images.first?.slot == 0)
            #expect(images.first?.version == "1.0.0")
            #expect(images.first?.active == true)
            #expect(images.first?.confirmed == true)
            #expect(
                try await session.send(.parameters) == .parameters(SMPParameters(bufferSize: 2475, bufferCount: 4)))
        }
    }

    /// `smp_bt_tx_pkt` sends an answer in notifications of `bt_gatt_get_mtu(conn) − 3` bytes
    /// (`smp_bt_conn_get_mtu`), and `smp_bt_chr_write` joins a request from writes of that size
    /// (`smp_reassembly_collect`): with ATT MTU 23, 20-byte pieces both ways.
    @Test func answersLongerThanTheATTPayloadAreSplitAtMTUMinusThree() async throws {
        try await withStandIn(devices: ["smp"], link: "mtu=23") { bus in
            let session = try await SMPSessionByHand(bus, writeLength: 20)
            let text = String(repeating: "0123456789", count: 7)
            #expect(try await session.send(.echo(text)) == .echo(text))
            // {"r": 70 characters}, its map open-ended as zcbor writes it, is 8 (header) + 1 (0xbf) + 2 ("r")
            // + 2 (text head) + 70 + 1 (break) = 84 bytes: four notifications of 20, one of 4.
            #expect(session.notifications.map(\.count) == [20, 20, 20, 20, 4])
            // A write longer than the ATT payload is refused by bluetoothd before it reaches the air.
            await #expect(throws: DBusError(name: "org.bluez.Error.Failed", message: "Failed to initiate write")) {
                _ = try await bus.call(
                    session.characteristic, BlueZNames.gattCharacteristic, "WriteValue",
                    [.byteArray(try session.frame(.echo(text)).bytes), SMPSessionByHand.command])
            }
        }
    }

    /// Upload in 1024-byte chunks, test by the image hash, reset: the device answers, drops the link after
    /// `MCUMGR_GRP_OS_RESET_MS`, MCUboot swaps, and it comes back running the new image unconfirmed; confirm.
    @Test func uploadTestResetSwapsAndConfirmAndTheReportShowsTheSlots() async throws {
        try await withStandIn(devices: ["smp,reset_ms=10"]) { bus in
            let session = try await SMPSessionByHand(bus)
            let image = Self.newImage
            let hash = try Self.newImageHash
            var offset = 0
            var requests = 0
            while offset < image.count {
                let data = Array(image[offset..<min(image.count, offset + 1024)])
                let chunk =
                    offset == 0
                    ? SMPUploadChunk(image: 0, length: image.count, offset: 0, sha: SHA256.digest(image), data: data)
                    : SMPUploadChunk(offset: offset, data: data)
                let answer = try await session.send(.upload(chunk))
                requests += 1
                let last = offset + data.count == image.count
                #expect(answer == .upload(offset: offset + data.count, match: last ? true : nil))
                offset += data.count
            }
            guard case .imageState(let pending) = try await session.send(.test(hash: hash)) else {
                Issue.record("no image list after test")
                return
            }
            #expect(pending.map(\.slot) == [0, 1])
            #expect(pending.last?.pending == true)
            #expect(pending.last?.hash == hash)
            #expect(try await session.send(.reset) == .reset)
            requests += 2
            try await bus.waitUntil("the reset drops the link") {
                try await bus.property("Connected", of: BlueZNames.device, at: session.device).boolValue == false
            }
            try await session.reconnect()
            guard case .imageState(let swapped) = try await session.send(.imageState) else {
                Issue.record("no image list after the reset")
                return
            }
            #expect(swapped.map(\.version) == ["2.0.0", "1.0.0"])
            #expect(swapped.first?.active == true)
            #expect(swapped.first?.confirmed == false)
            #expect(swapped.last?.confirmed == true)
            _ = try await session.send(.confirm(hash: nil))
            requests += 2

            let report = await bus.standIn.report()
            let entry = try #require(report.devices.first)
            #expect(entry.kind == "smp")
            #expect(entry.images.isEmpty)
            let hex = hash.map { String($0 >> 4, radix: 16) + String($0 & 0x0F, radix: 16) }.joined()
            #expect(
                entry.slots?.first
                    == StandInReport.Slot(
                        image: 0, slot: 0, version: "2.0.0", hash: hex, size: image.count, active: true,
                        pending: false, confirmed: true, permanent: false))
            #expect(entry.slots?.count == 2)
            #expect(entry.slots?.last?.version == "1.0.0")
            #expect(entry.slots?.last?.active == false)
            #expect(entry.stats.smp?.requests == requests)
            #expect(entry.stats.smp?.resets == 1)
            #expect(entry.stats.smp?.retransmissions == 0)
            #expect(entry.stats.smp?.maximumInFlight == 1)
            #expect(entry.stats.connections == 2)
            #expect(entry.violations.isEmpty)
        }
    }

    /// Through AcquireWrite and AcquireNotify: each datagram one write, each notification one datagram of at
    /// most MTU − 3 bytes; the answer joins back by the SMP length.
    @Test func acquiredSocketsCarryRequestsAndAnswersInMTUSizedPieces() async throws {
        try await withStandIn(devices: ["smp"], link: "mtu=23") { bus in
            let session = try await SMPSessionByHand(bus, subscribe: false)
            let options = DBusValue.stringVariantDictionary([:])
            let notify = try await bus.call(session.characteristic, BlueZNames.gattCharacteristic, "AcquireNotify", [options])
            let write = try await bus.call(session.characteristic, BlueZNames.gattCharacteristic, "AcquireWrite", [options])
            #expect(notify.last?.integerValue == 23)
            let input = try #require(notify.first?.fileDescriptorValue?.rawValue)
            let output = try #require(write.first?.fileDescriptorValue?.rawValue)
            let text = String(repeating: "abcdefghij", count: 5)
            let frame = try session.frame(.echo(text)).bytes
            for start in stride(from: 0, to: frame.count, by: 20) {
                let piece = Array(frame[start..<min(frame.count, start + 20)])
                let sent = piece.withUnsafeBytes { Glibc.write(output, $0.baseAddress, $0.count) }
                #expect(sent == piece.count)
            }
            var assembler = SMPFrameAssembler()
            var sizes: [Int] = []
            var answer: SMPFrame?
            while answer == nil {
                // Waited for on a thread of its own: the test runs on the loop the stand-in answers on.
                let ready = try await offThePool {
                    var entry = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
                    return poll(&entry, 1, 5000)
                }
                try #require(ready == 1, "an answer datagram")
                var buffer = [UInt8](repeating: 0, count: 512)
                let count = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
                try #require(count > 0)
                sizes.append(count)
                answer = try assembler.append(Array(buffer.prefix(count))).first
            }
            #expect(try SMPResponse(frame: try #require(answer), answering: .echo) == .echo(text))
            #expect(sizes.allSatisfy { $0 <= 20 } && sizes.count == 4, "63 bytes in 20-byte datagrams: \(sizes)")
            let entry = try #require(await bus.standIn.report().devices.first)
            #expect(entry.stats.acquireWrites == 1 && entry.stats.acquireNotifies == 1)
            #expect(entry.stats.smp?.requests == 1)
        }
    }

    /// `disconnect-after-bytes` drops the link in the middle of the upload (a frame being reassembled is
    /// dropped, `smp_bt.c`); after reconnecting, the first chunk with the same sha is answered with the offset
    /// reached (`img_mgmt_upload_inspect`), and it counts as a retransmission of offset 0.
    @Test func aLinkLostMidUploadResumesFromTheOffsetTheDeviceKept() async throws {
        let image = Self.newImage
        let first = SMPUploadChunk(
            image: 0, length: image.count, offset: 0, sha: SHA256.digest(image), data: Array(image[0..<1024]))
        let second = SMPUploadChunk(offset: 1024, data: Array(image[1024..<2048]))
        let third = SMPUploadChunk(offset: 2048, data: Array(image[2048..<3072]))
        // Frames are numbered 0, 1, 2: the link drops after the first write of the third frame.
        let before = try SMPRequest.upload(first).frame(sequence: 0).bytes.count
            + SMPRequest.upload(second).frame(sequence: 1).bytes.count
        try await withStandIn(devices: ["smp"], faults: ["disconnect-after-bytes=\(before + 1)"]) { bus in
            let session = try await SMPSessionByHand(bus)
            #expect(try await session.send(.upload(first)) == .upload(offset: 1024, match: nil))
            #expect(try await session.send(.upload(second)) == .upload(offset: 2048, match: nil))
            let partial = try session.frame(.upload(third)).bytes.prefix(244)
            try await session.write(Array(partial))
            try await bus.waitUntil("the link drops") {
                try await bus.property("Connected", of: BlueZNames.device, at: session.device).boolValue == false
            }
            try await session.reconnect()
            guard case .upload(let offset?, _) = try await session.send(.upload(first)) else {
                Issue.record("no offset in the resume's answer")
                return
            }
            #expect(offset == 2048, "the partial third frame was dropped with the link")
            let entry = try #require(await bus.standIn.report().devices.first)
            #expect(entry.stats.smp?.retransmissions == 1)
            #expect(entry.stats.smp?.requests == 3)
            #expect(entry.stats.connections == 2)
        }
    }

    /// `os_mgmt_reset` answers first and resets MCUMGR_GRP_OS_RESET_MS later (here 300 ms), answering meanwhile: the
    /// link stays up that long after the request, so a client takes the answer before it sees the link go (the
    /// stand-in used to drop it 2 ms after the answer, and smpclient, whose notifications come over a socket and the
    /// disconnection over D-Bus, once saw the disconnection first under load); and a client that hangs up at once
    /// does not stop the reset.
    @Test func theResetComesItsDelayAfterTheRequestWhetherOrNotTheClientStays() async throws {
        try await withStandIn(devices: ["smp,reset_ms=300"]) { bus in
            let session = try await SMPSessionByHand(bus)
            let sent = ContinuousClock.now
            #expect(try await session.send(.reset) == .reset)
            try await bus.waitUntil("the reset drops the link") {
                try await bus.property("Connected", of: BlueZNames.device, at: session.device).boolValue == false
            }
            #expect(sent.duration(to: .now) >= .milliseconds(300))
            #expect(try #require(await bus.standIn.report().devices.first).stats.smp?.resets == 1)
        }
        try await withStandIn(devices: ["smp,reset_ms=300"]) { bus in
            let session = try await SMPSessionByHand(bus)
            #expect(try await session.send(.reset) == .reset)
            _ = try await bus.call(session.device, BlueZNames.device, "Disconnect")
            try await bus.waitUntil("the device resets with nobody connected") {
                await bus.standIn.report().devices.first?.stats.smp?.resets == 1
            }
        }
    }

    /// `--link smp_paced=yes`: an answer reaches the client when the model says it would, a connection event
    /// after the request at the least (here 60 ms), instead of as soon as the model handled it.
    @Test func withSMPPacingAnswersWaitForTheModelledLink() async throws {
        try await withStandIn(devices: ["smp"], link: "interval_ms=60,smp_paced=yes") { bus in
            let session = try await SMPSessionByHand(bus)
            let start = ContinuousClock.now
            #expect(try await session.send(.echo("paced")) == .echo("paced"))
            let elapsed = ContinuousClock.now - start
            #expect(elapsed >= .milliseconds(55), "answered after \(elapsed)")
            let entry = try #require(await bus.standIn.report().devices.first)
            #expect(entry.stats.modelledMilliseconds >= 60)
        }
    }

    /// With pacing, a window of buf_count − 2 = 2 upload requests in flight fits the target's buffers even though
    /// each answer keeps its request's buffer and its own until it is acknowledged (conformance-mcuboot.md Z3): every
    /// chunk is answered in order and the image matches. (A window of 3 loses the request sent on an answer when it
    /// arrives before that answer's acknowledgement, which depends on how fast this machine answers:
    /// SMPUploadThroughTheTargetTests shows it in virtual time.)
    @Test func withSMPPacingAWindowOfTwoChunksFitsTheBuffers() async throws {
        try await withStandIn(devices: ["smp"], link: "interval_ms=30,smp_paced=yes") { bus in
            let session = try await SMPSessionByHand(bus)
            let image = Self.newImage
            let offsets = Array(stride(from: 0, to: image.count, by: 1024))
            func chunk(_ offset: Int) -> SMPRequest {
                let data = Array(image[offset..<min(image.count, offset + 1024)])
                return .upload(
                    offset == 0
                        ? SMPUploadChunk(image: 0, length: image.count, offset: 0, sha: SHA256.digest(image), data: data)
                        : SMPUploadChunk(offset: offset, data: data))
            }
            var sent = 0
            var answers: [SMPResponse] = []
            while answers.count < offsets.count {
                while sent < offsets.count, sent - answers.count < 2 {
                    try await session.write(try session.frame(chunk(offsets[sent])).bytes)
                    sent += 1
                }
                answers.append(try SMPResponse(frame: try await session.nextFrame(), answering: .upload))
            }
            let expected = offsets.map { offset -> SMPResponse in
                let end = min(image.count, offset + 1024)
                return .upload(offset: end, match: end == image.count ? true : nil)
            }
            #expect(answers == expected)
            let entry = try #require(await bus.standIn.report().devices.first)
            // The client keeps two in flight; how many the target holds at once depends on when each
            // answer's time comes (a slow machine answers one before the second arrives), never more.
            #expect((1...2).contains(entry.stats.smp?.maximumInFlight ?? 0))
            #expect(entry.stats.smp?.retransmissions == 0)
        }
    }

    /// bleak (smpclient's BLE transport) acquires the write socket only to learn the MTU, closes it at once and
    /// writes with WriteValue: the closed socket is released before the write is judged (`sock_hup`).
    @Test func aWriteValueRightAfterClosingTheAcquiredSocketIsAccepted() async throws {
        try await withStandIn(devices: ["smp"]) { bus in
            let session = try await SMPSessionByHand(bus)
            let reply = try await bus.call(
                session.characteristic, BlueZNames.gattCharacteristic, "AcquireWrite", [.stringVariantDictionary([:])])
            #expect(reply.last?.integerValue == 247)
            let socket = try #require(reply.first?.fileDescriptorValue)
            socket.close()
            #expect(try await session.send(.echo("after")) == .echo("after"))
            #expect(
                try await bus.property("WriteAcquired", of: BlueZNames.gattCharacteristic, at: session.characteristic)
                    .boolValue == false)
        }
    }

    /// A chunk sent again for an offset the server already received counts as a retransmission; the
    /// server answers the offset it expects (`img_mgmt_upload_inspect`).
    @Test func aChunkForAnOffsetAlreadyReceivedIsARetransmission() async throws {
        try await withStandIn(devices: ["smp"]) { bus in
            let session = try await SMPSessionByHand(bus)
            let image = Self.newImage
            let first = SMPUploadChunk(
                image: 0, length: image.count, offset: 0, sha: SHA256.digest(image), data: Array(image[0..<1024]))
            #expect(try await session.send(.upload(first)) == .upload(offset: 1024, match: nil))
            let second = SMPUploadChunk(offset: 1024, data: Array(image[1024..<2048]))
            #expect(try await session.send(.upload(second)) == .upload(offset: 2048, match: nil))
            #expect(try await session.send(.upload(second)) == .upload(offset: 2048, match: nil))
            let entry = try #require(await bus.standIn.report().devices.first)
            #expect(entry.stats.smp?.requests == 3)
            #expect(entry.stats.smp?.retransmissions == 1)
        }
    }

    /// A request the device handled without answering (the `unanswered_response` fault) stays in flight:
    /// the next one makes two.
    @Test func anUnansweredRequestStaysInFlight() async throws {
        try await withStandIn(devices: ["smp,unanswered_response=1"]) { bus in
            let session = try await SMPSessionByHand(bus)
            try await session.write(try session.frame(.echo("lost")).bytes)
            #expect(try await session.send(.echo("kept")) == .echo("kept"))
            let entry = try #require(await bus.standIn.report().devices.first)
            #expect(entry.stats.smp?.requests == 2)
            #expect(entry.stats.smp?.maximumInFlight == 2)
        }
    }

    /// `smp-nrf5340`: two images in the image list, with their image numbers; the report lists both.
    @Test func theNRF5340KindHasTheApplicationAndNetworkCoreImages() async throws {
        try await withStandIn(devices: ["smp-nrf5340,name=Dual,version=1.2.3"]) { bus in
            let session = try await SMPSessionByHand(bus)
            #expect(try await bus.property("Name", of: BlueZNames.device, at: session.device).stringValue == "Dual")
            guard case .imageState(let images) = try await session.send(.imageState) else {
                Issue.record("no image list")
                return
            }
            #expect(images.map(\.image) == [0, 1])
            #expect(images.map(\.version) == ["1.2.3", "1.2.3"])
            let report = await bus.standIn.report()
            #expect(report.devices.first?.kind == "smp-nrf5340")
            #expect(report.devices.first?.slots?.map(\.image) == [0, 1])
            #expect(report.devices.first?.slots?.allSatisfy { $0.active && $0.confirmed && $0.slot == 0 } == true)
        }
    }

    /// An nRF5 device's report has no SMP keys.
    @Test func nRF5DevicesReportNoSlotsNorSMPStatistics() async throws {
        try await withStandIn(devices: ["secure"]) { bus in
            let entry = try #require(await bus.standIn.report().devices.first)
            #expect(entry.slots == nil)
            #expect(entry.stats.smp?.requests == nil)
            let json = try await bus.standIn.report().json()
            #expect(!json.contains("smp_"))
            #expect(!json.contains("\"slots\""))
        }
    }
}
