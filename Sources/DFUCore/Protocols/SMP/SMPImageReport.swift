/// Where one image of an SMP upload stands, as far as the engine knows from the device's image list and
/// from what it asked of the device (MCUboot's swap: an image marked for test runs once and is reverted at
/// the next reset unless confirmed; mcuboot `docs/design.md`, "Image swapping"; the image list's flags:
/// zephyr `smp_group_1.rst`, "Get state of images response").
public enum SMPImageState: String, Sendable, Hashable, CaseIterable {
    /// Not (or not wholly) on the device.
    case notUploaded = "not_uploaded"
    /// In the secondary slot, not marked: MCUboot ignores it at a reset.
    case uploaded
    /// Marked for test (pending): it swaps in at the next reset, and is reverted at the one after unless confirmed.
    case markedTest = "marked_test"
    /// Confirmed while in the secondary slot (pending, permanent): it swaps in at the next reset, for good.
    case markedConfirm = "marked_confirm"
    /// Marked for test and the device was then reset to swap it in; whether MCUboot took it, only the image
    /// list after the reset says. If it did, the device runs it unconfirmed and reverts at the next reset.
    case resetTest = "reset_test"
    /// Confirmed while in the secondary slot and the device was then reset to swap it in for good.
    case resetConfirm = "reset_confirm"
    /// Running, not confirmed: MCUboot reverts it at the next reset unless it is confirmed.
    case runningTest = "running_test"
    /// Running and confirmed: nothing is left to do.
    case confirmed
    /// Written by MCUboot's firmware loader into the application slot (no test or confirm in that mode): MCUboot
    /// starts it at the next reset if it passes its check, and starts the loader again if it does not.
    case writtenByLoader = "written_by_loader"
}

/// One image of an SMP upload and where it stands (``SMPImageState``).
public struct SMPImageReport: Sendable, Hashable {
    /// The image number (0: the application, or an nRF5340's application core; 1: its network core).
    public var image: Int
    /// Where it stands.
    public var state: SMPImageState

    /// A report.
    public init(image: Int, state: SMPImageState) {
        self.image = image
        self.state = state
    }
}
