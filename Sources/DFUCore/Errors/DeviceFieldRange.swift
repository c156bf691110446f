/// The range a number a device sends must fall in, checked where it is decoded: a number outside it ends that
/// device's update with ``DFUError/outOfRange(field:value:allowed:)`` before any arithmetic uses it.
///
/// The bounds are those of the protocols' own types, widened where the protocol leaves room:
/// - SMP (zephyr `smp_group_0.rst`, `smp_group_1.rst`; `subsys/mgmt/mcumgr/transport/Kconfig`): buf_size is a
///   `CONFIG_MCUMGR_TRANSPORT_NETBUF_SIZE` (Kconfig range 64…65535) and buf_count a count of buffers (at least 1;
///   65535 is far beyond any RAM of a device that runs it); `off`, sizes and `max_image_size` are 32-bit in
///   Zephyr's `img_mgmt` (`size_t` on 32-bit SoCs); image and slot numbers are `uint8_t`s in MCUboot's image
///   numbering; `rc` is a non-negative `int32_t` (`mcumgr_err_t` and the groups' error enums).
/// - nRF5 Secure DFU (nRF5 SDK 15–17 `nrf_dfu_req_handler.c`): offsets and CRCs are `uint32_t`; the maximum object
///   size is a flash page count times the page size (4 KiB data objects, 256–512 bytes for the command object on
///   the SDK's bootloaders): 1 byte…1 MiB covers every build.
public struct DeviceFieldRange: Sendable, Hashable {
    /// The field's name as the protocol spells it, e.g. "buf_count".
    public let field: String
    /// The values allowed.
    public let allowed: ClosedRange<Int>

    /// A field and its range.
    public init(_ field: String, _ allowed: ClosedRange<Int>) {
        self.field = field
        self.allowed = allowed
    }

    /// `value` when it is in range, else the device's failure.
    public func checked(_ value: Int) throws(DFUError) -> Int {
        guard allowed.contains(value) else { throw failure(String(value)) }
        return value
    }

    /// The failure for `value` (a decimal number, possibly beyond `Int`).
    public func failure(_ value: String) -> DFUError {
        .outOfRange(field: field, value: value, allowed: "\(allowed.lowerBound)…\(allowed.upperBound)")
    }

    /// 2^32 − 1: the largest 32-bit offset or size.
    public static let uint32Max = Int(UInt32.max)
}

/// The ranges of the numbers an SMP (MCUmgr) server sends.
public enum SMPFieldRange {
    /// MCUmgr parameters' `buf_size`.
    public static let bufferSize = DeviceFieldRange("buf_size", 64...65_535)
    /// MCUmgr parameters' `buf_count`.
    public static let bufferCount = DeviceFieldRange("buf_count", 1...65_535)
    /// An upload answer's `off` (also never beyond the image: ``SMPUploadWindow``).
    public static let offset = DeviceFieldRange("off", 0...DeviceFieldRange.uint32Max)
    /// An image number (image list, slot info).
    public static let image = DeviceFieldRange("image", 0...255)
    /// A slot number.
    public static let slot = DeviceFieldRange("slot", 0...255)
    /// A slot's size.
    public static let size = DeviceFieldRange("size", 0...DeviceFieldRange.uint32Max)
    /// Slot info's `max_image_size`.
    public static let maxImageSize = DeviceFieldRange("max_image_size", 0...DeviceFieldRange.uint32Max)
    /// Slot info's `upload_image_id`.
    public static let uploadImageID = DeviceFieldRange("upload_image_id", 0...255)
    /// Bootloader info's `mode` (MCUboot's modes are −1…9; a later one is taken as unknown).
    public static let mode = DeviceFieldRange("mode", -1...255)
    /// An error's `rc`.
    public static let rc = DeviceFieldRange("rc", 0...Int(Int32.max))
    /// A version 2 error's `group`.
    public static let group = DeviceFieldRange("group", 0...Int(UInt16.max))

    /// Every SMP range, to name a field's range in messages.
    static let all = [bufferSize, bufferCount, offset, image, slot, size, maxImageSize, uploadImageID, mode, rc, group]
}

/// The ranges of the numbers an nRF5 Secure DFU bootloader sends.
public enum SecureFieldRange {
    /// Select Object's maximum object size.
    public static let maxObjectSize = DeviceFieldRange("max object size", 1...(1 << 20))
}
