/// Where one image of a plan stands on the device, read from the image list (zephyr
/// `smp_group_1.rst`, "Get state of images response"): what is still to be done for it.
enum SMPImageStatus: Sendable, Hashable {
    /// Not on the device: upload it.
    case needsUpload
    /// In the secondary slot, not marked: mark it for test or confirm it.
    case needsMark
    /// Marked (pending): it swaps in at the next reset.
    case pending
    /// Running from the primary slot but not confirmed: confirm it, or MCUboot reverts it at the next reset.
    case needsConfirm
    /// Running and confirmed: nothing left to do.
    case done
    /// After our reset the device does not run it: MCUboot refused or reverted it.
    case notRunning

    /// The status of `image` in `list`; `afterReset` when this connection follows our own reset.
    static func of(_ image: SMPUploadImage, in list: [SMPImageSlotState], afterReset: Bool) -> SMPImageStatus {
        let entries = list.filter { $0.image == image.image && $0.hash == image.imageHash }
        if let running = entries.first(where: { $0.active || $0.slot == 0 }) {
            return running.confirmed || running.permanent ? .done : .needsConfirm
        }
        if let secondary = entries.first {
            if secondary.pending { return .pending }
            return afterReset ? .notRunning : .needsMark
        }
        return afterReset ? .notRunning : .needsUpload
    }
}
