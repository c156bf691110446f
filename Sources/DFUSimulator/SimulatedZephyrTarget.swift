import CBOR
import DFUCore
import DFUCrypto
import DFUFormats

/// A Zephyr application with MCUmgr's SMP server over Bluetooth and MCUboot below it, as nRF Connect SDK
/// builds it, for tests and modelled figures.
///
/// Each behaviour names the Zephyr or MCUboot source it follows (zephyrproject-rtos/zephyr
/// `subsys/mgmt/mcumgr/…`, mcu-tools/mcuboot `boot/bootutil/…`, `docs/design.md`); docs/conformance-mcuboot.md
/// lists them and what is not modelled. Requests are handled one after another, as Zephyr's SMP work queue
/// does (`smp_handle_reqs` in `subsys/mgmt/mcumgr/smp/src/smp.c`), each taking the flash time its erases,
/// writes and hashes need; the upload state is in RAM and a reset loses it, the slots are in flash and
/// survive it.
public struct SimulatedZephyrTarget: SimulatedFirmware {
    /// The configuration.
    public let configuration: ZephyrTargetConfiguration
    /// Each image's slots.
    public internal(set) var slots: [SimulatedMCUbootSlots]
    /// Writes the target did not take as a request: dropped (no free buffer, longer than a buffer, not a whole frame:
    /// once a frame's first write is lost, its other writes are taken as frame starts and dropped too), or, without
    /// reassembly, answered MGMT_ERR_ECORRUPT or MGMT_ERR_ENOTSUP because they were no whole request.
    public private(set) var droppedFrames = 0
    /// Writes ignored because the link was not encrypted.
    public private(set) var refusedWrites = 0
    /// Resets so far (each runs MCUboot).
    public private(set) var resets = 0

    /// The upload in progress (`g_img_mgmt_state` in `img_mgmt.c`: area, size, offset, sha), lost at a reset.
    struct Upload: Sendable {
        var image: Int
        var size: Int
        var offset: Int
        var sha: [UInt8]
        var erasedPages: Int
    }

    var upload: Upload?
    var partial: [UInt8] = []
    var expected = 0
    var bufferReleaseTimes: [Duration] = []
    var busyUntil: Duration = .zero
    var responses = 0
    var uploadedBytes = 0
    /// Set by the reset-mid-upload fault: nothing more is handled before the reset.
    var resetScheduled = false
    /// NCSDK-34106: image 1 was marked while image 0's mark was already in place (until the next reset).
    var networkCoreMarkedAfterApplication = false
    /// Firmware loader mode: the loader runs (not the application).
    public internal(set) var runsLoader = false
    /// Firmware loader mode: the retained boot mode (`bootmode_set`), which survives a warm reset.
    var retainedBootMode: UInt8 = 0
    /// Firmware loader mode: MCUboot found nothing it could start, so nothing runs or advertises.
    public internal(set) var bootsNothing = false

    /// A target running the initial images of `configuration`.
    public init(configuration: ZephyrTargetConfiguration = ZephyrTargetConfiguration()) {
        self.configuration = configuration
        slots = configuration.images.enumerated().map { index, image in
            let initial = image.initialImage
                ?? SimulatedMCUbootImageBuilder(version: image.initialVersion).image(bodySize: 2048, seed: UInt8(truncatingIfNeeded: 100 + index))
            var slots = SimulatedMCUbootSlots(primary: initial, slotSize: image.slotSize, revertible: image.revertible)
            if let secondary = image.initialSecondary { slots.writeSecondary(secondary, at: 0) }
            if index == 0, configuration.firmwareLoader != nil, image.initialSecondary == nil {
                // The loader image in slot 1 (its signature is not modelled: ``bootFirmwareLoaderMode``).
                slots.writeSecondary(SimulatedMCUbootImageBuilder(version: (1, 0, 0, 0)).image(bodySize: 2048, seed: 200), at: 0)
            }
            return slots
        }
    }

    var characteristic: String { DFUServiceUUIDs().smpCharacteristic.uppercased() }

    /// The SMP service with its one characteristic, write without response and notify
    /// (`smp_bt.c`, `SMP_BT_SVC_UUID`/`SMP_BT_CHR_UUID`, `BT_GATT_CHRC_WRITE_WITHOUT_RESP | BT_GATT_CHRC_NOTIFY`).
    public var services: [SimulatedService] {
        [SimulatedService(uuid: DFUServiceUUIDs().smpService, characteristics: [
            SimulatedCharacteristic(uuid: characteristic, properties: [.writeWithoutResponse, .notify]),
        ])]
    }

    /// The configured name (the loader's while it runs).
    public var advertisedName: String { runsLoader ? loader?.name ?? configuration.name : configuration.name }

    /// Not while MCUboot found nothing to start, nor a loader with the fault that keeps it silent.
    public var isAdvertising: Bool { !bootsNothing && !(runsLoader && loader?.loaderNeverAdvertises == true) }

    /// The SMP service (as `smp_svr` advertises it).
    public var advertisedServiceUUIDs: [String] { [DFUServiceUUIDs().smpService.uppercased()] }

    /// Nothing is readable.
    public mutating func read(_ characteristic: String, context: inout SimulatedContext) -> Result<[UInt8], SimulatedATTError> {
        .failure(.readNotPermitted)
    }

    /// With `requiresEncryption`, an unbonded central cannot subscribe: Zephyr's `bt_gatt_check_perm` answers a
    /// CCCD write on an encryption-only attribute with Insufficient Authentication when there is no key.
    public func subscriptionError(for characteristic: String, isBonded: Bool) -> SimulatedATTError? {
        configuration.requiresEncryption && !isBonded && characteristic.uppercased() == self.characteristic
            ? .insufficientAuthentication : nil
    }

    /// A reassembly in progress is dropped (`smp_bt.c`, `smp_bt_disconnected` → `smp_reassembly_drop`); the
    /// upload state stays, so a client resumes from the offset.
    public mutating func connectionDropped(context: inout SimulatedContext) {
        partial = []
        expected = 0
    }

    /// MCUboot runs at the reset: each image's pending swap or revert. Returns the target after the reset and
    /// the time MCUboot spent moving pages (about three page erases and writes per page swapped through the
    /// scratch area, one per page copied; an estimate from the flash timings).
    public func afterReset(flash: FlashTimings) -> (target: SimulatedZephyrTarget, bootTime: Duration) {
        var next = SimulatedZephyrTarget(configuration: configuration)
        next.slots = slots
        next.resets = resets + 1
        // Fault counters run over the target's life, across resets.
        next.responses = responses
        next.uploadedBytes = uploadedBytes
        next.droppedFrames = droppedFrames
        next.refusedWrites = refusedWrites
        next.retainedBootMode = retainedBootMode
        var time = Duration.zero
        if configuration.firmwareLoader != nil {
            let checkTime = next.bootFirmwareLoaderMode(flash: flash)
            return (next, checkTime)
        }
        if configuration.skipsNetworkCoreMarkedAfterApplication, networkCoreMarkedAfterApplication, next.slots.count > 1 {
            // NCSDK-34106: MCUboot skips the network core update; it stays in the secondary slot, no longer marked
            // (how MCUboot leaves its trailer is not documented: an assumption).
            next.slots[1].nextBoot = .none
        }
        for index in next.slots.indices {
            let pages = next.slots[index].boot(key: configuration.verifyingKey, pageSize: configuration.pageSize)
            let perPage = flash.pageErase + flash.writeTime(bytes: configuration.pageSize)
            time += perPage * (pages * (next.slots[index].revertible ? 3 : 1))
        }
        return (next, time)
    }

    // MARK: - Writes

    /// A write to the SMP characteristic: collected into a frame (`smp_bt_chr_write`), then handled.
    public mutating func write(_ bytes: [UInt8], to characteristic: String, type: SimulatedWriteType,
                               context: inout SimulatedContext) -> SimulatedATTError? {
        guard characteristic.uppercased() == self.characteristic else { return .attributeNotFound }
        // An ATT error to a write command never goes on the air (the central's write just disappears).
        func refuse(_ error: SimulatedATTError) -> SimulatedATTError? { type == .request ? error : nil }
        if configuration.requiresEncryption, !context.isBonded {
            refusedWrites += 1
            return refuse(.insufficientAuthentication)
        }
        if resetScheduled { return nil }
        bufferReleaseTimes.removeAll { $0 <= context.now }
        if configuration.reassembly {
            if partial.isEmpty {
                // `smp_reassembly_collect`: the first fragment takes a buffer (-ENOMEM: Insufficient
                // Resources) and must hold the header, whose length fixes the frame's end.
                guard hasFreeBuffer(at: context.now) else {
                    droppedFrames += 1
                    return refuse(.insufficientResources)
                }
                guard let header = try? SMPHeader(bytes: bytes),
                    SMPHeader.size + Int(header.length) <= bufferSize
                else {
                    droppedFrames += 1
                    return refuse(.valueNotAllowed)
                }
                expected = SMPHeader.size + Int(header.length)
                partial = bytes
            } else {
                partial += bytes
            }
            // More than the header announced: the frame is dropped (`smp_bt_chr_write`, Value Not Allowed).
            guard partial.count <= expected else {
                partial = []
                droppedFrames += 1
                return refuse(.valueNotAllowed)
            }
            guard partial.count == expected else { return nil }
            let frame = partial
            partial = []
            process(packet: frame, context: &context)
            return nil
        }
        // Without reassembly (`smp_bt_chr_write`, its `#else` branch) each write is one packet in one buffer
        // (Insufficient Resources when none is free or the write is longer), handed to SMP as it is.
        guard hasFreeBuffer(at: context.now), bytes.count <= bufferSize else {
            droppedFrames += 1
            return refuse(.insufficientResources)
        }
        process(packet: bytes, context: &context)
        return nil
    }

    /// Requests waiting or in work hold a buffer each, and the one in work holds a second for its answer
    /// (`smp_process_request_packet` allocates the response from the same pool): buf_count − 1 requests fit. Both
    /// are freed only once the answer's last notification is acknowledged (`smp_bt_tx_pkt` waits for
    /// `smp_notify_sem`, given by the notification's completion callback), so a request the client sends as soon
    /// as the answer arrives can find none (conformance-mcuboot.md, Z3).
    func hasFreeBuffer(at now: Duration) -> Bool {
        let held = bufferReleaseTimes.filter { $0 > now }.count + (busyUntil > now ? 1 : 0) + (partial.isEmpty ? 0 : 1)
        return held < configuration.bufferCount
    }

    // MARK: - Frames

    /// `smp_process_request_packet` (zephyr `subsys/mgmt/mcumgr/smp/src/smp.c`): the packet's first 8 bytes are read
    /// as a header whatever they hold (`smp_read_hdr` checks only that there are 8). Fewer than 8: dropped without
    /// an answer. A header announcing more bytes than the packet has left ("Does buffer contain whole message?"):
    /// MGMT_ERR_ECORRUPT, answered by `smp_on_err` under that header (its group, sequence and command; read response
    /// for a read, write response for any other operation). An operation that is no request (a response, or 4–7;
    /// no SMP client in `smp_svr`): MGMT_ERR_ENOTSUP the same way. Otherwise the request is handled, and bytes after
    /// it are read as the next frame. So a frame split over two writes of a server without reassembly gets two
    /// answers: ECORRUPT under its own header, and one under whatever 8 bytes start the second write.
    mutating func process(packet: [UInt8], context: inout SimulatedContext) {
        var rest = packet[...]
        while !rest.isEmpty {
            guard rest.count >= SMPHeader.size else {
                droppedFrames += 1
                return
            }
            let head = Array(rest.prefix(SMPHeader.size))
            let operation = head[0] & 0x07
            let length = Int(head[2]) << 8 | Int(head[3])
            let body = rest.count - SMPHeader.size
            guard body >= length, operation == SMPOperation.read.rawValue || operation == SMPOperation.write.rawValue else {
                answerError(to: head, rc: body < length ? SMPManagementError.corrupt.rawValue : SMPManagementError.notSupported.rawValue,
                            context: &context)
                return
            }
            let end = rest.startIndex + SMPHeader.size + length
            handle(Array(rest[..<end]), context: &context)
            rest = rest[end...]
        }
    }

    /// `smp_on_err` → `smp_build_err_rsp`: `{"rc": rc}` (an open-ended map, as zcbor writes it) under the header
    /// `smp_make_rsp_hdr` makes from the request's 8 bytes, whatever they are: read response for a read, write
    /// response otherwise, the version capped at SMP version 2, flags 0, the group, sequence and command as they were.
    mutating func answerError(to head: [UInt8], rc: Int, context: inout SimulatedContext) {
        droppedFrames += 1
        let start = max(context.now, busyUntil)
        var end = start + configuration.processingPerFrame
        defer { release(at: end) }
        let version: SMPVersion = (head[0] >> 3) & 0x03 == 0 ? .version1 : .version2
        let operation: SMPOperation = head[0] & 0x07 == SMPOperation.read.rawValue ? .readResponse : .writeResponse
        guard let frame = try? SMPFrame(operation: operation, version: version, group: SMPGroup(rawValue: UInt16(head[4]) << 8 | UInt16(head[5])),
                                        command: head[7], sequence: head[6], body: .map(["rc": .int(rc)]), containers: .indefinite)
        else { return }
        responses += 1
        if !configuration.unansweredResponses.contains(responses) {
            end = notify(frame.bytes, at: end, context: &context)
        }
    }

    /// The request's buffer and its answer's are freed, and the work queue takes the next request, at `time`: once
    /// the answer's notifications are acknowledged, or when the request ends without an answer.
    mutating func release(at time: Duration) {
        busyUntil = time
        bufferReleaseTimes.append(time)
    }

    mutating func handle(_ bytes: [UInt8], context: inout SimulatedContext) {
        // A frame that does not decode is dropped without an answer (`smp_process_request_packet`).
        guard let frame = try? SMPFrame(bytes: bytes), !frame.header.operation.isResponse,
            let body = try? frame.decodedBody()
        else {
            droppedFrames += 1
            return
        }
        let start = max(context.now, busyUntil)
        var outcome = Outcome()
        dispatch(frame.header, body, outcome: &outcome, context: context)
        let end = start + configuration.processingPerFrame + outcome.work
        if outcome.resetBeforeAnswer {
            release(at: end)
            resetScheduled = true
            context.effects.append(.reboot(into: .application, after: end - context.now))
            return
        }
        var sent = end
        responses += 1
        if !configuration.unansweredResponses.contains(responses) {
            let copies = configuration.duplicatedResponses.contains(responses) ? 2 : 1
            let answer = answerFrame(to: frame.header, outcome.reply)
            for stale in 0..<configuration.floodPerAnswer {
                sent = notify(floodFrame(to: frame.header, index: stale), at: sent, context: &context)
            }
            for _ in 0..<copies { sent = notify(answer, at: sent, context: &context) }
        }
        release(at: sent)
        if let delay = outcome.resetAfterAnswer {
            // Requests keep being handled until the reset (`os_mgmt_reset` only schedules it).
            context.effects.append(.reboot(into: .application, after: end - context.now + delay))
        }
    }

    /// Notifications carry at most the link's ATT payload; a longer answer is split without extra framing
    /// (`smp_bt_tx_pkt`: chunks of `bt_gatt_get_mtu(conn) - 3`), each queued once the one before is acknowledged
    /// (`smp_bt_tx_pkt` takes `smp_notify_sem` after every `bt_gatt_notify_cb`). Returns when the last is
    /// acknowledged.
    func notify(_ frame: [UInt8], at time: Duration, context: inout SimulatedContext) -> Duration {
        let size = max(1, context.notificationLength)
        var offset = 0
        var queued = time
        repeat {
            let end = min(frame.count, offset + size)
            context.notify(characteristic, Array(frame[offset..<end]), after: queued - context.now)
            queued = context.notificationAcknowledged(queued)
            offset = end
        } while offset < frame.count
        return queued
    }

    enum Reply {
        case body(CBOR)
        case imageError(Int)
        case managementError(Int)
    }

    struct Outcome {
        var reply = Reply.body(.map([]))
        var work: Duration = .zero
        var resetAfterAnswer: Duration?
        var resetBeforeAnswer = false
    }

    /// The answer frame: the request's version, group, command and sequence. A group error is
    /// `{"err": {"group", "rc"}}` for SMP version 2 and the translated `{"rc"}` for version 1
    /// (`smp_add_cmd_err` in `smp.c`; `img_mgmt_translate_error_code` in `img_mgmt.c`).
    /// The flood fault's answer number `index` before the answer to `header`: same group and command,
    /// a sequence number the client did not use last (128 + index on from the request's), `off` 0, `rc` 0.
    func floodFrame(to header: SMPHeader, index: Int) -> [UInt8] {
        let sequence = header.sequence &+ 128 &+ UInt8(truncatingIfNeeded: index)
        let frame = try? SMPFrame(operation: header.operation.response, version: header.version, group: header.group,
                                  command: header.command, sequence: sequence, body: .map(["off": .int(0), "rc": .int(0)]),
                                  containers: .indefinite)
        return frame?.bytes ?? []
    }

    func answerFrame(to header: SMPHeader, _ reply: Reply) -> [UInt8] {
        let body: CBOR
        switch reply {
        case .body(let value): body = value
        case .managementError(let rc): body = .map(["rc": .int(rc)])
        case .imageError(let rc):
            body = header.version == .version2
                ? .map(["err": .map(["group": .int(Int(SMPGroup.image.rawValue)), "rc": .int(rc)])])
                : .map(["rc": .int(Self.translated(rc))])
        }
        // Zephyr encodes answers with zcbor without ZCBOR_CANONICAL: every map and array is open-ended
        // (zcbor_encode.c zcbor_map_start_encode/zcbor_list_start_encode), as the real smp_svr's answers show.
        let frame = try? SMPFrame(operation: header.operation.response, version: header.version, group: header.group,
                                  command: header.command, sequence: header.sequence, body: body,
                                  containers: .indefinite)
        return frame?.bytes ?? []
    }

    /// `img_mgmt_translate_error_code`: the MGMT_ERR_* an SMP version 1 client gets for an image group error.
    static func translated(_ rc: Int) -> Int {
        switch rc {
        case 3, 4: 5  // NO_IMAGE, NO_TLVS → ENOENT
        case 9, 27, 28: 6  // NO_FREE_SLOT, CURRENT_VERSION_IS_NEWER, IMAGE_ALREADY_PENDING → EBADSTATE
        case 15: 2  // NO_FREE_MEMORY → ENOMEM
        case 14, 19, 20, 21, 22, 24, 25: 3  // slot, offsets, length, header, hash, address → EINVAL
        default: 1  // EUNKNOWN
        }
    }

    mutating func dispatch(_ header: SMPHeader, _ body: CBOR, outcome: inout Outcome, context: SimulatedContext) {
        let write = header.operation == .write
        if dispatchFirmwareLoader(header, body, outcome: &outcome) { return }
        switch (header.group, header.command, write) {
        case (.os, 0, true): echo(body, outcome: &outcome)
        case (.os, 5, true): outcome.resetAfterAnswer = configuration.resetDelay
        case (.os, 6, false) where configuration.answersParameters:
            outcome.reply = .body(.map(["buf_size": .int(configuration.reportedBufferSize ?? bufferSize),
                                        "buf_count": .int(configuration.reportedBufferCount ?? configuration.bufferCount)]))
        case (.os, 8, false) where configuration.answersBootloaderInfo: bootloaderInfo(body, outcome: &outcome)
        case (.image, 0, false): outcome.reply = .body(stateBody())
        case (.image, 0, true): stateWrite(body, outcome: &outcome)
        case (.image, 1, true): uploadChunk(body, outcome: &outcome, context: context)
        case (.image, 5, true): erase(body, outcome: &outcome, context: context)
        case (.image, 6, false) where configuration.answersSlotInfo: outcome.reply = .body(slotInfoBody())
        default:
            // `smp_handle_single_req`: no handler → MGMT_ERR_ENOTSUP.
            outcome.reply = .managementError(8)
        }
    }

    /// OS group, echo (`os_mgmt_echo`): `{"d": text}` → `{"r": text}`; anything else is MGMT_ERR_EINVAL.
    func echo(_ body: CBOR, outcome: inout Outcome) {
        guard let text = body["d"]?.textValue else {
            outcome.reply = .managementError(3)
            return
        }
        outcome.reply = .body(.map(["r": .text(text)]))
    }
}

extension SimulatedATTError {
    /// 0x02 Read not permitted.
    public static let readNotPermitted = SimulatedATTError(code: 0x02)
    /// 0x05 Insufficient authentication.
    public static let insufficientAuthentication = SimulatedATTError(code: 0x05)
    /// 0x11 Insufficient resources.
    public static let insufficientResources = SimulatedATTError(code: 0x11)
    /// 0x13 Value not allowed.
    public static let valueNotAllowed = SimulatedATTError(code: 0x13)
}
