/// What the swap trailer at the end of a padded image says (mcu-tools/mcuboot `docs/design.md`,
/// "Image trailer").
public enum MCUbootTrailer: String, Sendable, Hashable {
    /// `image_ok` is set: MCUboot makes the image permanent when it swaps it in (`imgtool --confirm`).
    case confirmed
    /// `image_ok` is left erased: a test swap, reverted at the next reset unless the image confirms itself.
    case notConfirmed = "not confirmed"

    /// MCUboot's 16-byte boot magic (`boot/bootutil/src/bootutil_public.c`, `boot_img_magic`),
    /// the last bytes of a padded slot.
    public static let bootMagic: [UInt8] = [
        0x77, 0xC2, 0x95, 0xF3, 0x60, 0xD2, 0xEF, 0x7F, 0x35, 0x52, 0x50, 0x0F, 0x2C, 0xB6, 0x79, 0x80,
    ]
}
