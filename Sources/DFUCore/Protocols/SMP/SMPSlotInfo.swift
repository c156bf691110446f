/// One image's slots from slot info (image group, command 6; zephyr `smp_group_1.rst`, "Slot info
/// response"; `CONFIG_MCUMGR_GRP_IMG_SLOT_INFO`).
public struct SMPSlotInfo: Sendable, Hashable {
    /// One slot.
    public struct Slot: Sendable, Hashable {
        /// 0 or 1 within the image.
        public var slot: Int
        /// The slot's size in bytes.
        public var size: Int
        /// The image ID for direct upload into this slot, when offered.
        public var uploadImageID: Int?

        /// A slot.
        public init(slot: Int, size: Int, uploadImageID: Int? = nil) {
            self.slot = slot
            self.size = size
            self.uploadImageID = uploadImageID
        }
    }

    /// The image number.
    public var image: Int
    /// Its slots.
    public var slots: [Slot]
    /// The largest application the image accepts, when the firmware tells.
    public var maxImageSize: Int?

    /// Slot info of one image.
    public init(image: Int, slots: [Slot], maxImageSize: Int? = nil) {
        self.image = image
        self.slots = slots
        self.maxImageSize = maxImageSize
    }
}
