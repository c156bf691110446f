internal import CBOR
import DFUFormats

/// Whether the plan's images fit the device, judged before anything is written: from the slot info, or
/// from the image list when the server has none.
extension SMPUploadMachine {
    /// Without slot info: the images the image list shows, or the next step.
    mutating func afterSlotInfoUnavailable() -> DFUMachineAction {
        if let reason = misfit(imageList: imagesBefore ?? []) { return .fail(.firmwareMismatch(reason: reason)) }
        return nextStep()
    }

    /// The images still to upload, as "image N (X bytes)".
    var imagesToUpload: [SMPUploadImage] {
        plan.images.indices.filter { statuses[$0] == .needsUpload }.map { plan.images[$0] }
    }

    private static func bytes(_ count: Int) -> String { count == 1 ? "1 byte" : "\(count) bytes" }
    private static func images(_ count: Int) -> String { count == 1 ? "1 image" : "\(count) images" }

    /// Why the images to upload do not fit the slots that slot info lists (nil: they fit).
    func misfit(slotInfo info: [SMPSlotInfo]) -> String? {
        for image in imagesToUpload {
            guard let slots = info.first(where: { $0.image == image.image }) else {
                let numbers = info.map { String($0.image) }.joined(separator: ", ")
                return "the device has \(Self.images(info.count)) (slot info lists image \(numbers)); "
                    + "the package's image \(image.image) (\(Self.bytes(image.bytes.count))) has no slot there; nothing was written"
            }
            // A firmware loader writes the application's slot (0); otherwise the upload goes to the secondary (1).
            let target = loaderRole == .loader ? 0 : 1
            guard let secondary = slots.slots.first(where: { $0.slot == target }) ?? slots.slots.first else { continue }
            if image.bytes.count > secondary.size {
                return "image \(image.image) is \(Self.bytes(image.bytes.count)); the device's slot \(secondary.slot) of image "
                    + "\(image.image) holds \(Self.bytes(secondary.size)); nothing was written"
            }
            if let limit = slots.maxImageSize, limit > 0, image.bytes.count > limit {
                return "image \(image.image) is \(Self.bytes(image.bytes.count)); the device takes at most "
                    + "\(Self.bytes(limit)) for image \(image.image) (max_image_size); nothing was written"
            }
        }
        return nil
    }

    /// Why the images to upload do not fit a device without slot info (nil: they may): an image other than 0 for a
    /// one-image build, which ignores the upload's image number and would write it over image 0's secondary slot
    /// (`img_mgmt_get_unused_slot_area_id` in `zephyr_img_mgmt.c`). A build of several images names them in its list
    /// and refuses an image number it has no slots for itself (NO_FREE_SLOT); an empty list tells nothing.
    func misfit(imageList list: [SMPImageSlotState]) -> String? {
        guard listIsOneImageBuild, !list.isEmpty, let image = imagesToUpload.first(where: { $0.image != 0 }) else { return nil }
        return "the device has 1 image (its image list names no image numbers, as a one-image build writes it; it answers "
            + "no slot info); the package's image \(image.image) (\(Self.bytes(image.bytes.count))) has no slot there; "
            + "nothing was written"
    }

    /// Whether every entry of an image list frame lacks the `image` key (`img_mgmt_state_encode_slot` writes it only
    /// when `CONFIG_MCUMGR_GRP_IMG_UPDATABLE_IMAGE_NUMBER` is above 1); false for an empty list.
    static func listsNoImageNumbers(_ frame: SMPFrame) -> Bool {
        guard let entries = (try? frame.decodedBody())?["images"]?.arrayValue, !entries.isEmpty else { return false }
        return entries.allSatisfy { $0["image"] == nil }
    }

    func notRunning(_ index: Int) -> DFUMachineAction {
        .fail(.remote(step: .smp(.imageState), request: "the image list after the reset",
                      status: .smpImage(.notRunningAfterReset(image: plan.images[index].image))))
    }
}
