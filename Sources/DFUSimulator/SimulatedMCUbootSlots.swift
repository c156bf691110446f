import DFUCrypto
public import DFUFormats

/// One updatable image's two flash slots and MCUboot's swap state, as they survive resets.
///
/// The state is what MCUboot keeps in the slots' trailers (mcu-tools/mcuboot `docs/design.md`, "Image
/// Trailer" and "Swap Types"): a secondary slot marked for test or permanently, or a primary that runs under
/// test and is reverted on the next reset unless confirmed. Zephyr's image group reads it back as
/// `img_mgmt_get_next_boot_slot` does (`subsys/mgmt/mcumgr/grp/img_mgmt/src/img_mgmt_state.c`).
public struct SimulatedMCUbootSlots: Sendable {
    /// What the next reset does (`BOOT_SWAP_TYPE_*` of `bootutil_public.h`).
    public enum NextBoot: Sendable, Hashable {
        /// `BOOT_SWAP_TYPE_NONE`: the primary runs again.
        case none
        /// `BOOT_SWAP_TYPE_TEST`: the secondary is swapped in for one boot.
        case test
        /// `BOOT_SWAP_TYPE_PERM`: the secondary is swapped in for good.
        case permanent
        /// `BOOT_SWAP_TYPE_REVERT`: the running primary was tested and not confirmed; the old image comes back.
        case revert
    }

    /// The primary slot's image (what runs).
    public internal(set) var primary: [UInt8]
    /// The secondary slot's contents as written (empty when erased).
    public internal(set) var secondary: [UInt8] = []
    /// Whether the secondary slot is erased (nothing written since its last erase).
    public internal(set) var secondaryBlank = true
    /// What the next reset does.
    public internal(set) var nextBoot = NextBoot.none
    /// Whether MCUboot swaps this image (false: overwrite-only, no revert).
    public let revertible: Bool
    /// Bytes per slot.
    public let slotSize: Int

    /// Slots holding `primary`, with an erased secondary.
    public init(primary: [UInt8], slotSize: Int, revertible: Bool) {
        self.primary = primary
        self.slotSize = slotSize
        self.revertible = revertible
    }

    /// The image a slot holds when Zephyr's `img_mgmt_read_info` can read it (header, TLVs and a SHA256 TLV).
    public func image(inSlot slot: Int) -> MCUbootImage? {
        let bytes = slot == 0 ? primary : secondary
        guard let image = try? MCUbootImage(bytes: bytes, name: "slot \(slot)"), image.imageHash != nil else { return nil }
        return image
    }

    /// Whether the secondary may take an upload: `img_mgmt_slot_in_use` refuses a slot that is pending
    /// (test or permanent) or holds the image a revert would bring back.
    public var secondaryInUse: Bool { nextBoot != .none }

    // MARK: - Image group writes (img_mgmt_state.c)

    /// `boot_set_next` on the secondary: mark it for test, or permanently.
    mutating func markSecondary(permanent: Bool) { nextBoot = permanent ? .permanent : .test }

    /// `boot_set_next` on the active primary with confirm: write its image_ok (a tested image stays).
    mutating func confirmPrimary() { if nextBoot == .revert { nextBoot = .none } }

    // MARK: - Uploads (img_mgmt.c)

    /// Erases the secondary.
    mutating func eraseSecondary() {
        secondary = []
        secondaryBlank = true
    }

    /// The image group's erase of the whole secondary (`img_mgmt_erase_slot`): its trailer goes with it, so a mark
    /// for test or permanent is gone too.
    mutating func eraseWholeSecondary() {
        eraseSecondary()
        if nextBoot == .test || nextBoot == .permanent { nextBoot = .none }
    }

    /// Writes `data` at `offset` of the secondary.
    mutating func writeSecondary(_ data: [UInt8], at offset: Int) {
        if secondary.count < offset { secondary += [UInt8](repeating: 0xFF, count: offset - secondary.count) }
        let end = offset + data.count
        if secondary.count < end { secondary += [UInt8](repeating: 0xFF, count: end - secondary.count) }
        secondary.replaceSubrange(offset..<end, with: data)
        secondaryBlank = false
    }

    /// Erases the primary: what MCUboot's firmware loader does before it writes the application's slot.
    mutating func erasePrimary() { primary = [] }

    /// Writes `data` at `offset` of the primary (a firmware loader's upload).
    mutating func writePrimary(_ data: [UInt8], at offset: Int) {
        if primary.count < offset { primary += [UInt8](repeating: 0xFF, count: offset - primary.count) }
        let end = offset + data.count
        if primary.count < end { primary += [UInt8](repeating: 0xFF, count: end - primary.count) }
        primary.replaceSubrange(offset..<end, with: data)
    }

    // MARK: - MCUboot at reset

    /// What MCUboot does with this image at a reset (`docs/design.md`, "Swap Types" and "Image Trailer";
    /// `boot/bootutil/src/loader.c`, `boot_validate_slot`): a pending secondary is validated — its SHA256 TLV
    /// and, with a key, a signature by that key (`image_validate.c`, `bootutil_img_validate`) — then swapped in
    /// (or copied, overwrite-only); an invalid one is erased and the primary runs on; a tested image that was
    /// not confirmed is swapped back. Returns the pages MCUboot moved (for the boot time).
    mutating func boot(key: VerifyingKey?, pageSize: Int) -> Int {
        let pages = (max(primary.count, secondary.count) + pageSize - 1) / pageSize
        switch nextBoot {
        case .none:
            return 0
        case .revert:
            swap(&primary, &secondary)
            nextBoot = .none
            return pages
        case .test, .permanent:
            let permanent = nextBoot == .permanent
            nextBoot = .none
            guard let image = try? MCUbootImage(bytes: secondary, name: "secondary slot"),
                Self.isValid(image, key: key)
            else {
                eraseSecondary()
                return 0
            }
            let installed = Array(secondary.prefix(image.tlvEnd))
            if revertible {
                secondary = primary
                primary = installed
                if !permanent { nextBoot = .revert }
                return pages
            }
            primary = installed
            eraseSecondary()
            return pages
        }
    }

    /// MCUboot's acceptance of an image: the SHA256 TLV matches, and with a key a signature it verifies.
    static func isValid(_ image: MCUbootImage, key: VerifyingKey?) -> Bool {
        let report = MCUbootImageReport(image: image, key: key)
        guard case .matches = report.hashCheck else { return false }
        guard key != nil else { return true }
        if case .valid = report.signature { return true }
        return false
    }
}
