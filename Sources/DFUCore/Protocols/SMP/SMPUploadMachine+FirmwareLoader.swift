import DFUFormats

/// MCUboot's firmware loader mode (MCUboot 2.1 and later, `BOOT_FIRMWARE_LOADER`; docs/conformance-mcuboot.md):
/// one application slot, and in the secondary slot a firmware loader, a separate SMP server that takes the
/// application's update. MCUboot starts the loader when the retained boot mode asks for it (an OS reset with
/// `boot_mode` 1: `os_mgmt_reset` in zephyr `os_mgmt.c`; MCUboot clears the request as it reads it,
/// `io_detect_boot_mode` in mcuboot `boot/zephyr/io.c`), or when the application does not pass its check (with
/// `BOOT_FIRMWARE_LOADER_NO_APPLICATION`, always in the Bare Metal option); otherwise the application
/// (`boot_go` in `boot/zephyr/firmware_loader.c`). There is no test, confirm or revert: an image that passes the
/// check runs.
///
/// One machine per connection decides from what the device answers:
/// - the image list shows the loader running (slot 1 active; `img_mgmt_state_read` in firmware loader builds lists
///   the other slot, then the active one): it is the loader. Upload into its one slot (image 0: the loader's
///   `img_mgmt_get_unused_slot_area_id` takes slot 0), then reset; after our reset, the loader again means MCUboot
///   did not start the image;
/// - otherwise it is the application (whose build usually has no image group at all: the list is answered
///   MGMT_ERR_ENOTSUP). Already running the image: done. After the loader's reset: done (the application came
///   back, which MCUboot starts only after its check; its list, where it has one, must show the image). Otherwise
///   reset it with `boot_mode` 1 and finish with ``DFUMachineOutcome/jumped(bootloaderName:)``: the runner finds
///   the loader.
///
/// Whether a device is in this mode: bootloader info (OS group, command 8, `query: "mode"`, answered 7 by the
/// application and the loader alike), asked only when the image list is unusual for the other modes (no image
/// group, or slot 1 running or confirmed), or the plan's word (``SMPUploadPlan/firmwareLoader``).
extension SMPUploadMachine {
    /// Which side of a firmware loader device this connection reached.
    enum FirmwareLoaderRole: Sendable, Hashable {
        case application
        case loader
    }

    /// Whether the image list read first calls for the bootloader's mode (nil: the list was not supported).
    func asksBootloaderMode(_ list: [SMPImageSlotState]?) -> Bool {
        if plan.firmwareLoader == false { return false }
        if plan.firmwareLoader == true { return true }
        guard let list else { return true }
        return list.contains { $0.image == 0 && $0.slot == 1 && ($0.active || ($0.confirmed && !$0.pending)) }
    }

    /// The image list (or its refusal) arrived and calls for the mode: ask it, unless the plan already says.
    mutating func readBootloaderMode(list: [SMPImageSlotState]?) -> DFUMachineAction {
        imagesBefore = list
        if plan.firmwareLoader == true { return firmwareLoaderStep() }
        return send(.bootloaderInfo(query: "mode"), phase: .readingBootloaderMode)
    }

    /// The mode is known (nil: the server has no bootloader info, or answered no mode).
    mutating func bootloaderModeRead(_ info: SMPBootloaderInfo?) -> DFUMachineAction {
        bootloaderInfo = info
        if info?.mode == .firmwareLoader { return firmwareLoaderStep() }
        if requiresFirmwareLoader { return .fail(.unsupportedDevice(reason: Self.notAFirmwareLoader)) }
        guard let list = imagesBefore else {
            let said = info.map { "bootloader info says \($0)" } ?? "it has no bootloader info"
            return .fail(.unsupportedDevice(reason: "the SMP server has no image management (its image list is answered "
                + "\"not supported\"), and \(said); if it updates through MCUboot's firmware loader, give --firmware-loader"))
        }
        return imagesRead(list)
    }

    /// What a firmware loader device needs from this connection.
    mutating func firmwareLoaderStep() -> DFUMachineAction {
        guard plan.images.count == 1, let image = plan.images.first, image.image == 0 else {
            let numbers = plan.images.map { String($0.image) }.joined(separator: ", ")
            return .fail(.firmwareMismatch(reason: "the device updates through MCUboot's firmware loader, which has one "
                + "application slot (image 0); the package has image \(numbers); nothing was written"))
        }
        let list = imagesBefore ?? []
        if list.contains(where: { $0.image == 0 && $0.slot == 1 && $0.active }) {
            loaderRole = .loader
            if afterReset {
                return .fail(.remote(step: .smp(.imageState), request: "the image list after the reset",
                                     status: .smpImage(.notStartedByFirmwareLoader(image: 0))))
            }
            let written = list.contains { $0.image == 0 && $0.slot == 0 && $0.hash == image.imageHash }
            statuses = [written ? .needsMark : .needsUpload]
            permanent = [false]
            if written { return nextStep() }
            return send(.slotInfo, phase: .readingSlotInfo)
        }
        loaderRole = .application
        if requiresFirmwareLoader { return .fail(.unsupportedDevice(reason: Self.notAFirmwareLoader)) }
        let running = list.first { $0.image == 0 && $0.active }
        if running?.hash == image.imageHash || (afterReset && imagesBefore == nil) {
            // Running it (listed), or back from the loader's reset as the application, which MCUboot starts only once
            // it passed the check (its build lists no images to compare).
            statuses = [.done]
            permanent = [true]
            phase = .finished
            return sequenced([.report(.smpImages(imageReports)), .finish(.completed)])
        }
        if afterReset { return notRunning(0) }
        if enteredFirmwareLoader {
            return .fail(.unsupportedDevice(reason: "the device came back as its application after the reset into its "
                + "firmware loader: its SMP reset ignores boot_mode (Zephyr before 4.2, or MCUMGR_GRP_OS_RESET_BOOT_MODE "
                + "off), or MCUboot found no valid firmware loader; nothing was written"))
        }
        statuses = [.needsUpload]
        permanent = [false]
        let request = send(.resetWithBootMode(Self.bootloaderBootMode), phase: .enteringLoader)
        return leading([.report(.smpImages(imageReports)), .report(.progress(.enablingDFUMode, bytes: 0))], request)
    }

    /// Why a device at a fallback address is left alone: it is not a firmware loader.
    static let notAFirmwareLoader = "the SMP server at the fallback address is not a firmware loader"

    /// `BOOT_MODE_TYPE_BOOTLOADER` (zephyr `include/zephyr/retention/bootmode.h`).
    static let bootloaderBootMode: UInt8 = 1

    /// The loader's next step: the upload; the image list, which must show the image in the application's slot (so
    /// that the application that comes back after the reset can only be it); then a plain reset (MCUboot cleared the
    /// boot mode when it started the loader, so the next boot runs the application if it passes the check).
    mutating func nextLoaderStep() -> DFUMachineAction {
        let images = DFUMachineAction.report(.smpImages(imageReports))
        switch statuses.first {
        case .needsUpload:
            let upload = startUpload(0)
            return leading([images, .report(.smpPart(index: 0, bytes: 0))], upload)
        case .needsMark:
            let request = send(.imageState, phase: .checkingLoaderSlot)
            return leading([images, .report(.progress(.checkingImages, bytes: bytesOnDevice))], request)
        default:
            let request = send(.reset, phase: .resetting)
            return leading([images, .report(.progress(.resetting, bytes: bytesOnDevice))], request)
        }
    }

    /// The loader's image list after the upload.
    mutating func loaderSlotChecked(_ list: [SMPImageSlotState]) -> DFUMachineAction {
        guard let image = plan.images.first,
              list.contains(where: { $0.image == 0 && $0.slot == 0 && $0.hash == image.imageHash }) else {
            return .fail(.remote(step: step, request: "the firmware loader's image list after the upload",
                                 status: .smpImage(.notInApplicationSlot(image: 0))))
        }
        statuses = [.pending]
        return nextLoaderStep()
    }
}
