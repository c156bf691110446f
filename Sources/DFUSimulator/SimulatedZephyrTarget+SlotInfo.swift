import CBOR
import DFUCore
import DFUCrypto
import DFUFormats

/// The slot erase and the slot info the server gives (zephyr img_mgmt.c img_mgmt_erase, img_mgmt_slot_info).
extension SimulatedZephyrTarget {
    /// `img_mgmt_erase`: `{"slot": n}` names a slot counted over all images (image × 2 + 0 or 1), by default the
    /// running image's other slot (1). A `slot` that is no unsigned integer: MGMT_ERR_EINVAL. A slot holding a
    /// readable image that is in use (`img_mgmt_slot_in_use`: the running slot, a secondary marked for test or
    /// permanent, or the image a revert needs, `MCUMGR_GRP_IMG_ALLOW_ERASE_PENDING` off as in Zephyr 3.4):
    /// NO_FREE_SLOT (9). No such slot (`img_mgmt_erase_slot`, no flash area): INVALID_SLOT (14). Otherwise the slot
    /// is erased unless already blank (`img_mgmt_flash_check_empty_inner`), the upload in progress is dropped
    /// (`img_mgmt_reset_upload`) and the answer is `{}`.
    mutating func erase(_ body: CBOR, outcome: inout Outcome, context: SimulatedContext) {
        guard case .map = body else { return outcome.reply = .managementError(3) }
        var slot = 1
        if let field = body["slot"] {
            guard let value = field.intValue, value >= 0, value <= Int(UInt32.max) else { return outcome.reply = .managementError(3) }
            slot = value
        }
        let image = slot / 2
        guard image < slots.count else { return outcome.reply = .imageError(14) }  // INVALID_SLOT
        if slots[image].image(inSlot: slot % 2) != nil, slot % 2 == 0 || slots[image].secondaryInUse {
            return outcome.reply = .imageError(9)  // NO_FREE_SLOT
        }
        if slot % 2 == 1 {
            if !slots[image].secondaryBlank {
                outcome.work += context.flash.pageErase * ((slots[image].slotSize + configuration.pageSize - 1) / configuration.pageSize)
            }
            slots[image].eraseWholeSecondary()
        }
        upload = nil
        outcome.reply = .body(.map([]))
    }

    /// `img_mgmt_slot_info` (`MCUMGR_GRP_IMG_SLOT_INFO`): `{"images": [{"image", "slots": [{"slot", "size",
    /// "upload_image_id"}]}]}`, `upload_image_id` (the image number) on the slot that is not the running one;
    /// `max_image_size` only with `MCUMGR_GRP_IMG_TOO_LARGE_*`, not modelled.
    func slotInfoBody() -> CBOR {
        let images: [CBOR] = slots.enumerated().map { index, image in
            let entries: [CBOR] = [
                .map([CBOR.Entry(.text("slot"), .int(0)), CBOR.Entry(.text("size"), .int(image.slotSize))]),
                .map([CBOR.Entry(.text("slot"), .int(1)), CBOR.Entry(.text("size"), .int(image.slotSize)),
                      CBOR.Entry(.text("upload_image_id"), .int(index))]),
            ]
            return .map([CBOR.Entry(.text("image"), .int(index)), CBOR.Entry(.text("slots"), .array(entries))])
        }
        return .map(["images": .array(images)])
    }
}
