import CBOR
public import DFUCore
import DFUCrypto
import DFUFormats

/// The image state group's model: the image list, test and confirm marks, and the swap a reset
/// brings (zephyr img_mgmt_state.c).
extension SimulatedZephyrTarget {
    enum BootType { case normal, test, revert }

    /// `img_mgmt_get_next_boot_slot`: the slot the next reset runs and why.
    func nextBoot(_ image: Int) -> (slot: Int, type: BootType) {
        switch slots[image].nextBoot {
        case .none: (0, .normal)
        case .permanent: (1, .normal)
        case .test: (1, .test)
        case .revert: (1, .revert)
        }
    }

    /// `img_mgmt_state_read`: both slots of every image with a readable image, and their flags, by image then slot.
    public var imageList: [SMPImageSlotState] {
        if configuration.firmwareLoader != nil { return firmwareLoaderImageList }
        var entries: [SMPImageSlotState] = []
        for image in slots.indices {
            let (next, type) = nextBoot(image)
            let flagsPrimary: (pending: Bool, confirmed: Bool, active: Bool, permanent: Bool) =
                (false, type != .revert, true, false)
            var flagsSecondary: (pending: Bool, confirmed: Bool, active: Bool, permanent: Bool) = (false, false, false, false)
            if next != 0 {
                switch type {
                case .normal: flagsSecondary = (true, false, false, true)
                case .revert: flagsSecondary = (false, true, false, false)
                case .test: flagsSecondary = (true, false, false, false)
                }
            }
            for (slot, flags) in [(0, flagsPrimary), (1, flagsSecondary)] {
                guard let found = slots[image].image(inSlot: slot), let hash = found.imageHash else { continue }
                entries.append(SMPImageSlotState(
                    image: image, slot: slot, version: Self.versionString(found.version), hash: hash,
                    bootable: !found.flags.contains(.nonBootable), pending: flags.pending, confirmed: flags.confirmed,
                    active: flags.active, permanent: flags.permanent))
            }
        }
        return entries
    }

    /// The image list's body: the entries' fields in `img_mgmt_state_read`'s order, `image` only with several images.
    func stateBody() -> CBOR {
        let entries: [CBOR] = imageList.map { entry in
            var map: [CBOR.Entry] = []
            if configuration.images.count > 1 { map.append(CBOR.Entry(.text("image"), .int(entry.image))) }
            map.append(CBOR.Entry(.text("slot"), .int(entry.slot)))
            map.append(CBOR.Entry(.text("version"), .text(entry.version)))
            map.append(CBOR.Entry(.text("hash"), .bytes(entry.hash ?? [])))
            map.append(CBOR.Entry(.text("bootable"), .bool(entry.bootable)))
            map.append(CBOR.Entry(.text("pending"), .bool(entry.pending)))
            map.append(CBOR.Entry(.text("confirmed"), .bool(entry.confirmed)))
            map.append(CBOR.Entry(.text("active"), .bool(entry.active)))
            map.append(CBOR.Entry(.text("permanent"), .bool(entry.permanent)))
            return .map(map)
        }
        return .map(["images": .array(entries), "splitStatus": .int(0)])
    }

    /// `img_mgmt_ver_str`: "major.minor.revision", with ".build" when the build number is not 0.
    static func versionString(_ version: MCUbootVersion) -> String {
        "\(version.major).\(version.minor).\(version.revision)" + (version.build != 0 ? ".\(version.build)" : "")
    }

    /// `img_mgmt_state_write` and `img_mgmt_set_next_boot_slot`: test or confirm by hash, or confirm the running image.
    mutating func stateWrite(_ body: CBOR, outcome: inout Outcome) {
        let confirm = body["confirm"]?.boolValue ?? false
        let hash = body["hash"]?.bytesValue ?? []
        var image = 0
        var slot = 0
        if hash.isEmpty {
            guard confirm else { return outcome.reply = .imageError(24) }  // a test without a hash: INVALID_HASH
        } else {
            guard hash.count == 32 else { return outcome.reply = .imageError(24) }
            guard let found = findSlot(hash: hash) else { return outcome.reply = .imageError(8) }  // HASH_NOT_FOUND
            (image, slot) = found
        }
        let (next, type) = nextBoot(image)
        if confirm, image != 0, slot == 0 { return outcome.reply = .imageError(32) }  // CONFIRMATION_DENIED
        if !confirm, slot == 0 { return outcome.reply = .imageError(33) }  // TEST_TO_ACTIVE_DENIED
        switch type {
        case .test:
            if !confirm, slot == next { return outcome.reply = .body(stateBody()) }
            return outcome.reply = .imageError(28)  // IMAGE_ALREADY_PENDING
        case .normal:
            if confirm, slot == next { return outcome.reply = .body(stateBody()) }
            if (slot == 0 && next != 0) || (!confirm && slot != 0 && slot == next) { return outcome.reply = .imageError(28) }
        case .revert:
            if confirm, slot == next { return outcome.reply = .body(stateBody()) }
            if !confirm { return outcome.reply = .imageError(28) }
        }
        if slot == 0 {
            slots[image].confirmPrimary()
        } else {
            if image == 1, slots.count > 1, slots[0].nextBoot == .test || slots[0].nextBoot == .permanent {
                networkCoreMarkedAfterApplication = true
            }
            slots[image].markSecondary(permanent: confirm)
        }
        outcome.work += configuration.trailerWrite
        outcome.reply = .body(stateBody())
    }

    /// `img_mgmt_find_by_hash`: the slot whose SHA256 TLV is `hash`.
    func findSlot(hash: [UInt8]) -> (image: Int, slot: Int)? {
        for image in slots.indices {
            for slot in 0...1 where slots[image].image(inSlot: slot)?.imageHash == hash { return (image, slot) }
        }
        return nil
    }
}
