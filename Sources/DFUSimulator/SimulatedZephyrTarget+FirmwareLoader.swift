import CBOR
public import DFUCore
import DFUCrypto
import DFUFormats

/// MCUboot's firmware loader mode (``FirmwareLoaderConfiguration``): image 0's primary slot holds the application,
/// its secondary the loader (mcuboot `boot/zephyr/Kconfig`, `BOOT_FIRMWARE_LOADER`). Either runs over the same SMP
/// transport; what differs is what they answer, and what MCUboot starts at a reset.
extension SimulatedZephyrTarget {
    /// The loader's configuration, for a firmware loader build.
    var loader: FirmwareLoaderConfiguration? { configuration.firmwareLoader }

    /// The receive buffer of what runs (the loader's build has its own).
    var bufferSize: Int { runsLoader ? loader?.loaderBufferSize ?? configuration.bufferSize : configuration.bufferSize }

    /// The slot an upload writes: a firmware loader writes the application's (0: `img_mgmt_slot_in_use` answers
    /// "free" for it in a firmware loader build, so `img_mgmt_get_unused_slot_area_id` takes slot 0); otherwise 1.
    func uploadArea(_ image: Int) -> [UInt8] { runsLoader ? slots[image].primary : slots[image].secondary }

    func uploadAreaIsBlank(_ image: Int) -> Bool { runsLoader ? slots[image].primary.isEmpty : slots[image].secondaryBlank }

    mutating func eraseUploadArea(_ image: Int) {
        if runsLoader { slots[image].erasePrimary() } else { slots[image].eraseSecondary() }
    }

    mutating func writeUploadArea(_ image: Int, _ data: [UInt8], at offset: Int) {
        if runsLoader { slots[image].writePrimary(data, at: offset) } else { slots[image].writeSecondary(data, at: offset) }
    }

    /// The requests a firmware loader build answers otherwise than a swap build; false for the others.
    mutating func dispatchFirmwareLoader(_ header: SMPHeader, _ body: CBOR, outcome: inout Outcome) -> Bool {
        guard let loader else { return false }
        switch (header.group, header.command, header.operation == .write) {
        case (.os, 5, true):
            // `os_mgmt_reset`: with MCUMGR_GRP_OS_RESET_BOOT_MODE an unsigned `boot_mode` above 255 is MGMT_ERR_EINVAL
            // (no reset); one up to 255 is kept for MCUboot (`bootmode_set`); other fields and types are ignored.
            if !runsLoader, loader.resetTakesBootMode, case .unsigned(let mode)? = body["boot_mode"] {
                guard mode <= 255 else {
                    outcome.reply = .managementError(3)
                    return true
                }
                retainedBootMode = UInt8(mode)
            }
            outcome.resetAfterAnswer = configuration.resetDelay
        case (.image, 0, false) where !runsLoader && !loader.applicationListsImages,
             (.image, 1, true) where !runsLoader && !loader.applicationListsImages,
             (.image, 6, false) where !runsLoader && !loader.applicationListsImages:
            // The samples' applications have no image group: `smp_handle_single_req` finds no handler.
            outcome.reply = .managementError(8)
        case (.image, 1, true) where !runsLoader:
            // An application with an image group would write slot 0 (itself) or, patched, slot 1 (the loader): refused
            // here, as no client should upload to it (an assumption: what the real one does is not modelled).
            outcome.reply = .imageError(9)
        case (.image, 0, true), (.image, 5, true):
            // The Bare Metal option's loader registers only the image list and the upload (`bm_img_mgmt.c`): test,
            // confirm and erase answer MGMT_ERR_ENOTSUP; the application has no image group.
            outcome.reply = .managementError(8)
        default:
            return false
        }
        return true
    }

    /// `os_mgmt_bootloader_info` (built with MCUMGR_GRP_OS_BOOTLOADER_INFO): `{"bootloader": "MCUboot"}` without a
    /// query, the running image's mode for "mode" (7 for either side of a firmware loader build; otherwise swap using
    /// move, the nRF Connect SDK's default), OS_MGMT_ERR_QUERY_YIELDS_NO_ANSWER (3, in the OS group) for any other.
    func bootloaderInfo(_ body: CBOR, outcome: inout Outcome) {
        switch body["query"] {
        case nil:
            outcome.reply = .body(.map(["bootloader": .text("MCUboot")]))
        case .text("mode")?:
            let mode: SMPBootloaderInfo.Mode = loader != nil ? .firmwareLoader
                : configuration.images.contains { !$0.revertible } ? .overwriteOnly : .swapUsingMove
            outcome.reply = .body(.map(["mode": .int(mode.rawValue)]))
        case .text?:
            outcome.reply = .body(.map(["err": .map(["group": .int(Int(SMPGroup.os.rawValue)), "rc": .int(3)])]))
        default:
            outcome.reply = .managementError(3)
        }
    }

    /// `img_mgmt_state_read` of a firmware loader build: the other slot (flagged confirmed), then the running one
    /// (active), each only when it holds a readable image.
    var firmwareLoaderImageList: [SMPImageSlotState] {
        let order = runsLoader ? [(0, false), (1, true)] : [(1, false), (0, true)]
        return order.compactMap { slot, active in
            guard let found = slots[0].image(inSlot: slot), let hash = found.imageHash else { return nil }
            return SMPImageSlotState(slot: slot, version: Self.versionString(found.version), hash: hash,
                                     bootable: !found.flags.contains(.nonBootable), confirmed: !active, active: active)
        }
    }

    /// MCUboot's `boot_go` in firmware loader mode at a reset: a retained boot mode of 1 (cleared as it is read,
    /// `io_detect_boot_mode`) starts the loader if it passes its check; else the application if it passes; else,
    /// with `BOOT_FIRMWARE_LOADER_NO_APPLICATION`, the loader; else nothing. Returns the time the checks took.
    mutating func bootFirmwareLoaderMode(flash: FlashTimings) -> Duration {
        guard let loader else { return .zero }
        func valid(_ bytes: [UInt8], key: VerifyingKey?) -> Bool {
            guard let image = try? MCUbootImage(bytes: bytes, name: "slot") else { return false }
            return SimulatedMCUbootSlots.isValid(image, key: key)
        }
        let wantsLoader = retainedBootMode == 1
        if wantsLoader { retainedBootMode = 0 }
        // The loader is the build's own image, signed with the same key (mcuboot `boot/zephyr/Kconfig`); only its hash
        // is checked here (the simulated loader carries no signature).
        let loaderValid = valid(slots[0].secondary, key: nil)
        let applicationValid = valid(slots[0].primary, key: configuration.verifyingKey)
        let checked = slots[0].primary.count + (wantsLoader || !applicationValid ? slots[0].secondary.count : 0)
        if wantsLoader, loaderValid {
            runsLoader = true
        } else if applicationValid {
            runsLoader = false
        } else if loader.startsLoaderWithoutApplication, loaderValid {
            runsLoader = true
        } else {
            runsLoader = false
            bootsNothing = true
        }
        return flash.hashPerKilobyte * (checked / 1024 + 1)
    }

    /// The address it advertises with, given the chip's.
    public func advertisingAddress(chip: DFUDeviceAddress) -> DFUDeviceAddress {
        runsLoader && loader?.address == .lowestBitInverted ? chip.firmwareLoaderAddress : chip
    }
}
