/// What the image list (or the last upload answer) shows went wrong with an image, when no error
/// code says so (MCUboot's swap: mcuboot `docs/design.md`, "Image swapping"; the list as
/// `img_mgmt_state_read` in zephyr `img_mgmt_state.c` writes it).
public enum SMPImageFault: Sendable, Hashable, CustomStringConvertible {
    /// After the reset the device does not run the image: MCUboot refused it (signature, version,
    /// slot) or ran it once and reverted it.
    case notRunningAfterReset(image: Int)
    /// After test or confirm the image list does not show the image pending.
    case notMarked(image: Int)
    /// The device's SHA-256 of the received image differed twice (`match` false).
    case hashMismatch(image: Int)
    /// After the firmware loader's reset the loader came back, not the application: MCUboot did not start the image.
    case notStartedByFirmwareLoader(image: Int)
    /// After the upload the firmware loader's image list does not show the image in the application's slot.
    case notInApplicationSlot(image: Int)

    /// A sentence with what to do.
    public var description: String {
        switch self {
        case .notRunningAfterReset(let image):
            "image \(image) is not running after the reset: MCUboot refused it or reverted it; check that it is "
                + "signed with the bootloader's key and built for this device and slot"
        case .notMarked(let image):
            "image \(image) is not pending after it was marked; read the image list and retry"
        case .notStartedByFirmwareLoader(let image):
            "image \(image) was written by the firmware loader, but after the reset the firmware loader came back: MCUboot "
                + "did not start the image (it failed MCUboot's check: check that it is signed with the bootloader's key "
                + "and built for this device); the device stays in its firmware loader, and a rerun uploads again"
        case .notInApplicationSlot(let image):
            "after the upload the firmware loader's image list does not show image \(image) in the application's slot; "
                + "the device was not reset and stays in its firmware loader; a rerun uploads again"
        case .hashMismatch(let image):
            "the device's SHA-256 of image \(image) did not match after two complete uploads; the link or the "
                + "device's flash is corrupting data"
        }
    }
}
