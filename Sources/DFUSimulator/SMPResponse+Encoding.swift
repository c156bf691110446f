public import CBOR
public import DFUCore

extension SMPResponse {
    /// The body a server sends for this response, keys in the order Zephyr writes them
    /// (`os_mgmt.c`, `img_mgmt.c` `img_mgmt_upload_good_rsp`, `img_mgmt_state.c` `img_mgmt_state_read`):
    /// the image list's flags only when true (`CONFIG_MCUMGR_GRP_IMG_FRUGAL_LIST`) unless `frugal` is
    /// false, and each entry's `image` only with `imageNumbers` (firmware with more than one image).
    /// For simulated servers and round-trip tests.
    public func body(imageNumbers: Bool = false, frugal: Bool = true) -> CBOR {
        switch self {
        case .echo(let text):
            return .map(["r": .text(text)])
        case .reset, .erase:
            return .map([])
        case .parameters(let parameters):
            return .map(["buf_size": .int(parameters.bufferSize), "buf_count": .int(parameters.bufferCount)])
        case .bootloaderInfo(let info):
            // `os_mgmt_bootloader_info`: `bootloader` without a query, `mode` (and `no-downgrade` when set) for "mode".
            var entries: [CBOR.Entry] = []
            if let bootloader = info.bootloader { entries.append(CBOR.Entry(.text("bootloader"), .text(bootloader))) }
            if let mode = info.modeNumber { entries.append(CBOR.Entry(.text("mode"), .int(mode))) }
            if info.noDowngrade { entries.append(CBOR.Entry(.text("no-downgrade"), .bool(true))) }
            return .map(entries)
        case .imageState(let images):
            return .map(["images": .array(images.map { image in
                var entries: [CBOR.Entry] = []
                if imageNumbers { entries.append(CBOR.Entry(.text("image"), .int(image.image))) }
                entries.append(CBOR.Entry(.text("slot"), .int(image.slot)))
                entries.append(CBOR.Entry(.text("version"), .text(image.version)))
                if let hash = image.hash { entries.append(CBOR.Entry(.text("hash"), .bytes(hash))) }
                let flags = [("bootable", image.bootable), ("pending", image.pending), ("confirmed", image.confirmed),
                             ("active", image.active), ("permanent", image.permanent)]
                for (name, value) in flags where value || !frugal {
                    entries.append(CBOR.Entry(.text(name), .bool(value)))
                }
                return .map(entries)
            })])
        case .upload(let offset, let match):
            var entries: [CBOR.Entry] = []
            if let offset { entries.append(CBOR.Entry(.text("off"), .int(offset))) }
            if let match { entries.append(CBOR.Entry(.text("match"), .bool(match))) }
            return .map(entries)
        case .slotInfo(let images):
            return .map(["images": .array(images.map { info in
                var entries: [CBOR.Entry] = [
                    CBOR.Entry(.text("image"), .int(info.image)),
                    CBOR.Entry(.text("slots"), .array(info.slots.map { slot in
                        var fields: [CBOR.Entry] = [CBOR.Entry(.text("slot"), .int(slot.slot)),
                                                    CBOR.Entry(.text("size"), .int(slot.size))]
                        if let id = slot.uploadImageID { fields.append(CBOR.Entry(.text("upload_image_id"), .int(id))) }
                        return .map(fields)
                    })),
                ]
                if let size = info.maxImageSize { entries.append(CBOR.Entry(.text("max_image_size"), .int(size))) }
                return .map(entries)
            })])
        case .failure(.management(let error, let reason)):
            var entries = [CBOR.Entry(.text("rc"), .int(error.rawValue))]
            if let reason { entries.append(CBOR.Entry(.text("rsn"), .text(reason))) }
            return .map(entries)
        case .failure(.image(let error)):
            return .map(["err": .map(["group": .int(Int(SMPGroup.image.rawValue)), "rc": .int(error.rawValue)])])
        case .failure(.group(let group, let rc)):
            return .map(["err": .map(["group": .int(Int(group.rawValue)), "rc": .int(rc)])])
        }
    }

    /// The response frame to `request`: its group, command and sequence number, the response operation,
    /// the same SMP version.
    public func frame(answering request: SMPHeader, imageNumbers: Bool = false) throws(CBORError) -> SMPFrame {
        try SMPFrame(operation: request.operation.response, version: request.version, group: request.group,
                     command: request.command, sequence: request.sequence, body: body(imageNumbers: imageNumbers))
    }
}
