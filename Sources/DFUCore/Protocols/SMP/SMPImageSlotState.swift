import DFUFormats
/// One entry of the image state list (image group, command 0; zephyr `smp_group_1.rst`, "Get state
/// of images response"; written by `img_mgmt_state_read` in
/// `subsys/mgmt/mcumgr/grp/img_mgmt/src/img_mgmt_state.c`).
public struct SMPImageSlotState: Sendable, Hashable, CustomStringConvertible {
    /// The image number (absent in single-image firmware: 0).
    public var image: Int
    /// 0 primary (running), 1 secondary.
    public var slot: Int
    /// The version as the device wrote it: Zephyr writes "1.2.3", or "1.2.3.4" for build number 4.
    public var version: String
    /// The image's SHA256 TLV (not a hash of the file).
    public var hash: [UInt8]?
    /// Bootable flag.
    public var bootable: Bool
    /// Set for the next swap.
    public var pending: Bool
    /// Confirmed: stays after the next reset.
    public var confirmed: Bool
    /// The running image.
    public var active: Bool
    /// Stays in the primary slot after the next boot.
    public var permanent: Bool

    /// An entry.
    public init(image: Int = 0, slot: Int, version: String, hash: [UInt8]?, bootable: Bool = false,
                pending: Bool = false, confirmed: Bool = false, active: Bool = false, permanent: Bool = false) {
        self.image = image
        self.slot = slot
        self.version = version
        self.hash = hash
        self.bootable = bootable
        self.pending = pending
        self.confirmed = confirmed
        self.active = active
        self.permanent = permanent
    }

    /// The version in MCUboot's form, as `dfu inspect` shows an image's: "1.2.3+4", "1.2.3+0" for Zephyr's
    /// "1.2.3"; a text in no form Zephyr writes as sent.
    public var displayVersion: String {
        MCUbootVersion(imageListText: version)?.description ?? version
    }

    /// The hash in lower-case hex ("" when absent).
    public var hashHex: String {
        (hash ?? []).map { byte in String(byte >> 4, radix: 16) + String(byte & 0x0F, radix: 16) }.joined()
    }

    /// e.g. "image 0 slot 1: 1.2.0+0, pending, hash 3a4b…".
    public var description: String {
        var flags: [String] = []
        if active { flags.append("active") }
        if confirmed { flags.append("confirmed") }
        if pending { flags.append("pending") }
        if permanent { flags.append("permanent") }
        if bootable { flags.append("bootable") }
        let shortHash = hash.map { _ in " hash " + String(hashHex.prefix(8)) + "…" } ?? ""
        return "image \(image) slot \(slot): \(displayVersion)" + (flags.isEmpty ? "" : ", " + flags.joined(separator: ", "))
            + shortHash
    }
}
