/// An image management group error (group 1), as SMP version 2 servers send it in
/// `{"err": {"group": 1, "rc": n}}` (zephyr `include/zephyr/mgmt/mcumgr/grp/img_mgmt/img_mgmt.h`,
/// `enum img_mgmt_err_code_t`; codes 0–33 as in Zephyr 3.5+, 34 added later).
public struct SMPImageError: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code as sent.
    public let rawValue: Int

    /// Any code.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// IMG_MGMT_ERR_NO_FREE_SLOT: there is no slot to upload into.
    public static let noFreeSlot = Self(rawValue: 9)
    /// IMG_MGMT_ERR_INVALID_OFFSET.
    public static let invalidOffset = Self(rawValue: 20)
    /// IMG_MGMT_ERR_INVALID_LENGTH.
    public static let invalidLength = Self(rawValue: 21)
    /// IMG_MGMT_ERR_INVALID_HASH.
    public static let invalidHash = Self(rawValue: 24)
    /// IMG_MGMT_ERR_CURRENT_VERSION_IS_NEWER.
    public static let currentVersionIsNewer = Self(rawValue: 27)
    /// IMG_MGMT_ERR_IMAGE_ALREADY_PENDING.
    public static let imageAlreadyPending = Self(rawValue: 28)
    /// IMG_MGMT_ERR_INVALID_IMAGE_TOO_LARGE.
    public static let imageTooLarge = Self(rawValue: 30)
    /// IMG_MGMT_ERR_INVALID_IMAGE_DATA_OVERRUN.
    public static let dataOverrun = Self(rawValue: 31)
    /// IMG_MGMT_ERR_IMAGE_SETTING_TEST_TO_ACTIVE_DENIED.
    public static let testOfActiveDenied = Self(rawValue: 33)

    private static let table: [(name: String, meaning: String, advice: String)] = [
        ("OK", "no error", "Nothing to do."),
        ("UNKNOWN", "unknown error", "The device gave no cause; its reason text or log may say more, then try again."),
        ("FLASH_CONFIG_QUERY_FAIL", "failed to query the flash area configuration",
         "The firmware's flash layout is broken; rebuild the firmware."),
        ("NO_IMAGE", "there is no image in the slot", "Upload an image before testing or confirming it."),
        ("NO_TLVS", "the image in the slot has no TLVs", "The slot holds no valid MCUboot image; upload a signed image."),
        ("INVALID_TLV", "the image in the slot has an invalid TLV type or length",
         "The slot's image is damaged; upload it again."),
        ("TLV_MULTIPLE_HASHES_FOUND", "the image in the slot has several hash TLVs",
         "The image was not made by imgtool as MCUboot expects; sign it again."),
        ("TLV_INVALID_SIZE", "the image in the slot has a TLV of invalid size",
         "The slot's image is damaged; upload it again."),
        // img_mgmt_state_write: the hash of a test or confirm request names no image in any slot
        // (img_mgmt_find_by_hash found none; an image without a hash TLV is skipped there, not reported).
        ("HASH_NOT_FOUND", "no image on the device has the hash given",
         "The image is not (or no longer) on the device: 'dfu images' lists the hashes it holds; upload the image again."),
        ("NO_FREE_SLOT", "there is no free slot for the image",
         "The slot the image goes to is in use: it holds an image marked to run at the next reset "
         + "('dfu reset' runs it), or the image a tested one reverts to ('dfu confirm' keeps the running one); "
         + "'dfu images' shows which; then retry."),
        ("FLASH_OPEN_FAILED", "opening the flash area failed", "The device could not open its flash; reset it and retry."),
        ("FLASH_READ_FAILED", "reading the flash area failed", "The device could not read its flash; reset it and retry."),
        ("FLASH_WRITE_FAILED", "writing the flash area failed",
         "The device could not write its flash; reset it and upload again from the start."),
        ("FLASH_ERASE_FAILED", "erasing the flash area failed", "The device could not erase its flash; reset it and retry."),
        ("INVALID_SLOT", "the slot is not valid", "Name a slot the device has (read its image list)."),
        ("NO_FREE_MEMORY", "insufficient heap memory", "The device ran out of memory; reset it and retry."),
        ("FLASH_CONTEXT_ALREADY_SET", "the flash context is already set", "Reset the device and retry."),
        ("FLASH_CONTEXT_NOT_SET", "the flash context is not set", "Reset the device and retry."),
        ("FLASH_AREA_DEVICE_NULL", "the flash area has no device", "The firmware's flash layout is broken; rebuild the firmware."),
        ("INVALID_PAGE_OFFSET", "the offset for a page number is invalid", "Upload the image again from the start."),
        ("INVALID_OFFSET", "the offset is missing or wrong", "Upload the image again from the start."),
        ("INVALID_LENGTH", "the length is missing or wrong", "Upload the image again from the start with its length."),
        ("INVALID_IMAGE_HEADER", "the image is shorter than an image header",
         "The file is not an MCUboot image; sign it with imgtool."),
        ("INVALID_IMAGE_HEADER_MAGIC", "the image header magic is wrong",
         "The file is not an MCUboot image; sign it with imgtool."),
        ("INVALID_HASH", "the hash is not valid", "The hash sent does not fit; upload again from the start."),
        ("INVALID_FLASH_ADDRESS", "the image's load address does not match the slot",
         "The image was built for another slot or device; build it for this one."),
        ("VERSION_GET_FAILED", "failed to read the running application's version",
         "The device cannot compare versions; upload without the upgrade-only option."),
        ("CURRENT_VERSION_IS_NEWER", "the running application is newer than the image",
         "Upload a newer image, or upload without the upgrade-only option to downgrade."),
        ("IMAGE_ALREADY_PENDING", "an image is already pending",
         "Reset the device to run (or drop) the pending image, then retry."),
        ("INVALID_IMAGE_VECTOR_TABLE", "the image's vector table is invalid",
         "The image was built for another device or slot; build it for this one."),
        ("INVALID_IMAGE_TOO_LARGE", "the image is too large for the slot",
         "Build a smaller image, or one for a device with a larger slot."),
        ("INVALID_IMAGE_DATA_OVERRUN", "more data was sent than the image's length",
         "Upload the image again from the start."),
        ("IMAGE_CONFIRMATION_DENIED", "confirming the image was denied",
         "The device refuses to confirm this image (it may not be running it); reset it and read the image list."),
        ("IMAGE_SETTING_TEST_TO_ACTIVE_DENIED", "the running image cannot be marked for test",
         "The image is already running; confirm it instead."),
        ("ACTIVE_SLOT_NOT_KNOWN", "the active slot of the image cannot be determined",
         "The device cannot tell which slot runs; reset it and retry."),
    ]

    private var entry: (name: String, meaning: String, advice: String)? {
        Self.table.indices.contains(rawValue) ? Self.table[rawValue] : nil
    }

    /// The C name, e.g. "IMG_MGMT_ERR_NO_FREE_SLOT".
    public var name: String { entry.map { "IMG_MGMT_ERR_" + $0.name } ?? "IMG_MGMT_ERR \(rawValue)" }

    /// What the code means, from the header's comment.
    public var meaning: String { entry?.meaning ?? "an image management error this tool does not know" }

    /// One sentence of what to do.
    public var advice: String { entry?.advice ?? "See the firmware's documentation for this code." }

    /// e.g. "IMG_MGMT_ERR_NO_FREE_SLOT (9): there is no free slot for the image".
    public var description: String { "\(name) (\(rawValue)): \(meaning)" }
}
