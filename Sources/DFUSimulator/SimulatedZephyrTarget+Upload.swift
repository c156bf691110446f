import CBOR
import DFUCore
import DFUCrypto
import DFUFormats

/// The image upload's model: chunks checked and written to the secondary slot (a firmware loader's: the
/// application's slot) at the server's offset (zephyr img_mgmt.c img_mgmt_upload, zephyr_img_mgmt.c
/// img_mgmt_upload_inspect).
extension SimulatedZephyrTarget {
    mutating func uploadChunk(_ body: CBOR, outcome: inout Outcome, context: SimulatedContext) {
        guard case .map = body else { return outcome.reply = .managementError(3) }
        func field<T>(_ key: String, _ read: (CBOR) -> T?) -> (present: Bool, value: T?) {
            guard let value = body[key] else { return (false, nil) }
            return (true, read(value))
        }
        let offsetField = field("off") { $0.intValue }
        let lengthField = field("len") { $0.intValue }
        let imageField = field("image") { $0.intValue }
        let shaField = field("sha") { $0.bytesValue }
        let dataField = field("data") { $0.bytesValue }
        let upgradeField = field("upgrade") { $0.boolValue }
        // A field of the wrong type fails `zcbor_map_decode_bulk`: MGMT_ERR_EINVAL.
        for (present, ok) in [(offsetField.present, offsetField.value != nil), (lengthField.present, lengthField.value != nil),
                              (imageField.present, imageField.value != nil), (shaField.present, shaField.value != nil),
                              (dataField.present, dataField.value != nil), (upgradeField.present, upgradeField.value != nil)]
            where present && !ok { return outcome.reply = .managementError(3) }
        let data = dataField.value ?? []
        let sha = shaField.value ?? []
        guard let offset = offsetField.value, offset >= 0 else {
            upload = nil
            return outcome.reply = .imageError(20)  // no `off`: INVALID_OFFSET
        }
        if configuration.lyingOffset, offset != 0 {
            // Hostile fault (docs/conformance-mcuboot.md, H3): no real server does this.
            upload = nil
            return outcome.reply = .body(.map(["off": .int(0)]))
        }
        if offset == 0, beginUpload(data: data, length: lengthField.value, sha: sha, requestedImage: imageField.value,
                                    upgrade: upgradeField.value == true, outcome: &outcome, context: context) {
            return
        }
        guard var current = upload else {
            // Nothing in progress (e.g. after a reset): the expected offset is 0.
            return outcome.reply = .body(.map(["off": .int(0)]))
        }
        if offset != 0 {
            // `img_mgmt_upload_inspect`: a wrong offset is not an error; the answer names the expected one.
            guard offset == current.offset else { return outcome.reply = .body(.map(["off": .int(current.offset)])) }
            guard offset + data.count <= current.size else { return fail(31, &outcome) }  // DATA_OVERRUN
        }
        var match: Bool?
        if !data.isEmpty {
            if let limit = configuration.resetAfterUploadBytes, uploadedBytes < limit, uploadedBytes + data.count >= limit {
                uploadedBytes += data.count
                outcome.resetBeforeAnswer = true
                return
            }
            uploadedBytes += data.count
            if configuration.eraseProgressively {
                let pagesNeeded = (offset + data.count + configuration.pageSize - 1) / configuration.pageSize
                if pagesNeeded > current.erasedPages {
                    outcome.work += context.flash.pageErase * (pagesNeeded - current.erasedPages)
                    current.erasedPages = pagesNeeded
                }
            }
            writeUploadArea(current.image, data, at: offset)
            outcome.work += context.flash.writeTime(bytes: data.count)
            current.offset += data.count
            if current.offset == current.size, configuration.imageCheck {
                outcome.work += context.flash.hashPerKilobyte * (current.size / 1024 + 1)
                let digest = SHA256.digest(Array(uploadArea(current.image).prefix(current.size)))
                match = current.sha.count == 32 && digest == current.sha
            }
        }
        upload = current.offset == current.size ? nil : current
        var reply: [CBOR.Entry] = [CBOR.Entry(.text("off"), .int(current.offset))]
        if let match { reply.append(CBOR.Entry(.text("match"), .bool(match))) }
        outcome.reply = .body(.map(reply))
    }

    /// The first chunk (offset 0): its header checked, the image's slot chosen and erased, or the upload in
    /// progress resumed or an identical image found. Returns whether it answered the request already.
    private mutating func beginUpload(
        data: [UInt8], length: Int?, sha: [UInt8], requestedImage: Int?, upgrade: Bool,
        outcome: inout Outcome, context: SimulatedContext
    ) -> Bool {
        guard data.count >= MCUbootImage.headerSize else { fail(22, &outcome); return true }  // INVALID_IMAGE_HEADER
        guard let length, length >= 0 else { fail(21, &outcome); return true }  // INVALID_LENGTH
        let magic = UInt32(data[0]) | UInt32(data[1]) << 8 | UInt32(data[2]) << 16 | UInt32(data[3]) << 24
        guard magic == MCUbootImage.magic else { fail(23, &outcome); return true }  // INVALID_IMAGE_HEADER_MAGIC
        guard sha.count <= 32 else { fail(24, &outcome); return true }  // INVALID_HASH
        // The same sha as the upload in progress resumes it: the answer is its offset, nothing is written.
        if !sha.isEmpty, let upload, upload.sha == sha {
            outcome.reply = .body(.map(["off": .int(upload.offset)]))
            return true
        }
        // `img_mgmt_get_unused_slot_area_id`: a one-image build ignores `image` (it picks the first slot not in
        // use, its secondary), so another image number lands in image 0's secondary; with several images, an
        // image number without partitions or a secondary pending or needed for a revert is NO_FREE_SLOT.
        let image = slots.count == 1 ? 0 : requestedImage ?? 0
        guard image >= 0, image < slots.count, !slots[image].secondaryInUse else { fail(9, &outcome); return true }
        guard length <= slots[image].slotSize else { fail(30, &outcome); return true }  // INVALID_IMAGE_TOO_LARGE
        if upgrade, let running = slots[image].image(inSlot: 0) {
            let new = MCUbootVersion(major: data[20], minor: data[21], revision: UInt16(data[22]) | UInt16(data[23]) << 8,
                                     build: UInt32(data[24]) | UInt32(data[25]) << 8 | UInt32(data[26]) << 16 | UInt32(data[27]) << 24)
            guard running.version < new else { fail(27, &outcome); return true }  // CURRENT_VERSION_IS_NEWER
        }
        upload = Upload(image: image, size: length, offset: 0, sha: sha, erasedPages: 0)
        // IMAGE_CHECK with a whole sha: a slot that already holds this file needs no upload.
        if configuration.imageCheck, sha.count == 32, uploadArea(image).count >= length,
            SHA256.digest(Array(uploadArea(image).prefix(length))) == sha {
            outcome.work += context.flash.hashPerKilobyte * (length / 1024 + 1)
            upload = nil
            outcome.reply = .body(.map(["off": .int(length), "match": .bool(true)]))
            return true
        }
        if !configuration.eraseProgressively {
            // `img_mgmt_erase_image_data(0, len)` unless the slot is blank, plus the trailer's page.
            if !uploadAreaIsBlank(image) {
                let pages = (length + configuration.pageSize - 1) / configuration.pageSize + 1
                outcome.work += context.flash.pageErase * pages
            }
            eraseUploadArea(image)
            upload?.erasedPages = Int.max
        } else {
            eraseUploadArea(image)
        }
        return false
    }

    /// An image group error ends the upload in progress (`img_mgmt_reset_upload`).
    mutating func fail(_ rc: Int, _ outcome: inout Outcome) {
        upload = nil
        outcome.reply = .imageError(rc)
    }
}
