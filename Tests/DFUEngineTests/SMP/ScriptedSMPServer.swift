import CBOR
import DFUCore
import DFUCrypto

/// A small SMP server for the machine's tests, answering as Zephyr's MCUmgr does (each rule cites
/// where): the MCUmgr parameters, the image list, uploads with offsets, resume by `sha` and `match`,
/// test/confirm by hash, and a reset that swaps as MCUboot does. Faults are switched on per test.
/// It is a scripted stand-in, not the simulated target (which lives in DFUSimulator).
final class ScriptedSMPServer {
    struct Slot: Equatable {
        var hash: [UInt8]
        var version: String
        var confirmed = false
        var pending = false
        var permanent = false
    }

    var bufSize = 2475
    var bufCount = 4
    /// Answer the parameters command (false: MGMT_ERR_ENOTSUP, as without CONFIG_MCUMGR_GRP_OS_MCUMGR_PARAMS).
    var answersParameters = true
    /// Images the server recognises as valid, by the file's SHA-256: the image hash (TLV) MCUboot reads.
    var validImages: [[UInt8]: [UInt8]] = [:]
    /// Per image number: primary (running) and secondary slots.
    var primary: [Int: Slot] = [:]
    var secondary: [Int: Slot] = [:]
    /// Images MCUboot refuses to boot (by hash): a test swap reverts at once.
    var failsToBoot: Set<[UInt8]> = []
    /// Answer the next upload chunk with this error instead ({"err": {"group": 1, "rc": n}}).
    var uploadError: Int?
    /// Corrupt the first complete upload (its `match` is false once).
    var corruptOnce = false
    /// Corrupt every complete upload.
    var alwaysMismatch = false
    /// Speak only SMP version 1: a version 2 request gets MGMT_ERR_UNSUPPORTED_TOO_NEW (zephyr `smp.c`).
    var onlyVersion1 = false
    /// Hostile: every chunk at an offset other than 0 is answered with off 0 and the upload dropped.
    var lyingOffset = false
    /// The slot info answer's body (image command 6, `img_mgmt_slot_info`); nil: MGMT_ERR_ENOTSUP, as without
    /// CONFIG_MCUMGR_GRP_IMG_SLOT_INFO.
    var slotInfo: CBOR?
    /// Write `image` in the image list's entries (false: as a one-image build, `img_mgmt_state_encode_slot`).
    var numbersImages = true
    /// Never answer slot info (a server that drops unknown commands; not Zephyr).
    var slotInfoUnanswered = false
    /// The version of every request taken.
    private(set) var versions: [SMPVersion] = []

    // Upload state (img_mgmt.c `g_img_mgmt_state`): kept across connections, dropped by a reset.
    private(set) var uploadImage = 0
    private(set) var uploadOffset = 0
    private(set) var uploadSize = 0
    private(set) var uploadSHA: [UInt8] = []
    private(set) var received: [UInt8] = []
    private(set) var uploading = false
    private var assembler = SMPFrameAssembler()
    private(set) var resetRequested = false
    private(set) var chunksWritten = 0

    /// Takes one write; returns the answers (whole frames) it completes.
    func receive(_ bytes: [UInt8]) -> [[UInt8]] {
        guard let frames = try? assembler.append(bytes) else { return [] }
        return frames.compactMap { answer($0)?.bytes }
    }

    private func respond(_ request: SMPFrame, _ body: CBOR) -> SMPFrame? {
        try? SMPFrame(operation: request.header.operation.response, version: request.header.version,
                      group: request.header.group, command: request.header.command,
                      sequence: request.header.sequence, body: body)
    }

    private func answer(_ frame: SMPFrame) -> SMPFrame? {
        versions.append(frame.header.version)
        if onlyVersion1, frame.header.version == .version2 {
            return try? SMPFrame(operation: frame.header.operation.response, version: .version1, group: frame.header.group,
                                 command: frame.header.command, sequence: frame.header.sequence, body: .map(["rc": .int(13)]))
        }
        guard let body = try? frame.decodedBody() else { return respond(frame, .map(["rc": .int(3)])) }
        switch (frame.header.group, frame.header.command) {
        case (.os, 6):
            // os_mgmt.c, os_mgmt_mcumgr_params: buf_size and buf_count of the transport's net_bufs.
            return answersParameters
                ? respond(frame, .map(["buf_size": .int(bufSize), "buf_count": .int(bufCount)]))
                : respond(frame, .map(["rc": .int(8)]))
        case (.os, 5):
            // os_mgmt.c, os_mgmt_reset: the answer goes out, then the device resets.
            resetRequested = true
            return respond(frame, .map([]))
        case (.image, 0) where frame.header.operation == .read:
            return respond(frame, imageList())
        case (.image, 0):
            // img_mgmt_state.c, img_mgmt_state_write: mark the slot holding `hash` pending (for test, or
            // permanent with confirm); confirm of the running image confirms it.
            let hash = body["hash"]?.bytesValue
            let confirm = body["confirm"]?.boolValue ?? false
            for (image, slot) in secondary where slot.hash == hash {
                secondary[image]?.pending = true
                secondary[image]?.permanent = confirm
                return respond(frame, imageList())
            }
            for (image, slot) in primary where slot.hash == hash || (hash == nil && confirm) {
                guard confirm else { return respond(frame, .map(["err": .map(["group": .int(1), "rc": .int(33)])])) }
                primary[image]?.confirmed = true
                return respond(frame, imageList())
            }
            return respond(frame, .map(["err": .map(["group": .int(1), "rc": .int(3)])]))
        case (.image, 1):
            return upload(frame, body)
        case (.image, 6) where slotInfoUnanswered:
            return nil
        case (.image, 6) where slotInfo != nil:
            return respond(frame, slotInfo ?? .map([]))
        default:
            return respond(frame, .map(["rc": .int(8)]))
        }
    }

    /// img_mgmt.c, img_mgmt_upload / img_mgmt_upload_inspect.
    private func upload(_ frame: SMPFrame, _ body: CBOR) -> SMPFrame? {
        if let error = uploadError {
            uploadError = nil
            return respond(frame, .map(["err": .map(["group": .int(1), "rc": .int(error)])]))
        }
        guard let chunk = try? SMPUploadChunk(body: body) else { return respond(frame, .map(["rc": .int(3)])) }
        if lyingOffset, chunk.offset != 0 {
            uploading = false
            return respond(frame, .map(["off": .int(0)]))
        }
        if chunk.offset == 0 {
            guard chunk.data.count >= 32 else {  // IMG_MGMT_ERR_INVALID_IMAGE_HEADER
                return respond(frame, .map(["err": .map(["group": .int(1), "rc": .int(22)])]))
            }
            guard let length = chunk.length else { return respond(frame, .map(["err": .map(["group": .int(1), "rc": .int(21)])])) }
            if uploading, let sha = chunk.sha, sha == uploadSHA, chunk.image ?? 0 == uploadImage {
                // Same sha as the upload in progress: answer where it stands (resume).
                return respond(frame, .map(["off": .int(uploadOffset)]))
            }
            uploading = true
            uploadImage = chunk.image ?? 0
            uploadSize = length
            uploadSHA = chunk.sha ?? []
            uploadOffset = 0
            received = []
            secondary[uploadImage] = nil
        }
        guard uploading, chunk.offset == uploadOffset else {
            // A chunk for another offset is not written; the answer says where the upload is.
            return respond(frame, .map(["off": .int(uploadOffset)]))
        }
        received += chunk.data
        uploadOffset += chunk.data.count
        chunksWritten += 1
        guard uploadOffset == uploadSize else { return respond(frame, .map(["off": .int(uploadOffset)])) }
        // The last chunk: `match` is the SHA-256 check of CONFIG_IMG_ENABLE_IMAGE_CHECK; the state is reset.
        uploading = false
        var match = SHA256.digest(received) == uploadSHA
        if corruptOnce || alwaysMismatch {
            corruptOnce = false
            match = false
        }
        if match, let hash = validImages[uploadSHA] {
            secondary[uploadImage] = Slot(hash: hash, version: "2.0.0")
        }
        return respond(frame, .map(["off": .int(uploadOffset), "match": .bool(match)]))
    }

    /// img_mgmt_state.c, img_mgmt_state_read: both slots of every image, flags only when true.
    private func imageList() -> CBOR {
        var entries: [CBOR] = []
        for image in Set(primary.keys).union(secondary.keys).sorted() {
            for (slotNumber, slot) in [(0, primary[image]), (1, secondary[image])] {
                guard let slot else { continue }
                var fields: [CBOR.Entry] = [
                    CBOR.Entry(.text("image"), .int(image)), CBOR.Entry(.text("slot"), .int(slotNumber)),
                    CBOR.Entry(.text("version"), .text(slot.version)), CBOR.Entry(.text("hash"), .bytes(slot.hash)),
                ]
                if !numbersImages { fields.removeFirst() }
                if slotNumber == 0 { fields.append(CBOR.Entry(.text("active"), .bool(true))) }
                if slot.confirmed { fields.append(CBOR.Entry(.text("confirmed"), .bool(true))) }
                if slot.pending { fields.append(CBOR.Entry(.text("pending"), .bool(true))) }
                if slot.permanent { fields.append(CBOR.Entry(.text("permanent"), .bool(true))) }
                entries.append(.map(fields))
            }
        }
        return .map(["images": .array(entries)])
    }

    /// The device resets: the upload state is lost; MCUboot swaps a pending secondary into the
    /// primary slot (confirmed when permanent, else on test), and reverts an unconfirmed test image
    /// (mcuboot `docs/design.md`, "Image swapping").
    func reset() {
        resetRequested = false
        uploading = false
        assembler.reset()
        for image in Set(primary.keys).union(secondary.keys) {
            if let running = primary[image], !running.confirmed, let old = secondary[image] {
                // A test image not confirmed: revert.
                primary[image] = Slot(hash: old.hash, version: old.version, confirmed: true)
                secondary[image] = Slot(hash: running.hash, version: running.version)
                continue
            }
            guard let new = secondary[image], new.pending else { continue }
            if failsToBoot.contains(new.hash) {
                secondary[image]?.pending = false
                continue
            }
            let old = primary[image]
            primary[image] = Slot(hash: new.hash, version: new.version, confirmed: new.permanent)
            secondary[image] = old.map { Slot(hash: $0.hash, version: $0.version, confirmed: false) }
        }
    }
}
