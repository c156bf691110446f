/// What an SMP server says of its bootloader (OS group, command 8; `os_mgmt_bootloader_info` in zephyr
/// `subsys/mgmt/mcumgr/grp/os_mgmt/src/os_mgmt.c`, built with `MCUMGR_GRP_OS_BOOTLOADER_INFO`): without a query
/// `{"bootloader": "MCUboot"}`, with `query: "mode"` the MCUboot mode the running image was built for and, where
/// set, `no-downgrade`.
public struct SMPBootloaderInfo: Sendable, Hashable, CustomStringConvertible {
    /// MCUboot's modes as `mode` numbers them (`enum mcuboot_mode` in mcuboot
    /// `boot/bootutil/include/bootutil/boot_status.h`; os_mgmt answers the running image's
    /// `CONFIG_MCUBOOT_BOOTLOADER_MODE_*`, −1 where it knows none).
    public enum Mode: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case unknown = -1
        case singleSlot = 0
        case swapUsingScratch = 1
        case overwriteOnly = 2
        case swapUsingMove = 3
        case directXIP = 4
        case directXIPWithRevert = 5
        case ramLoad = 6
        /// One application slot; the secondary slot holds a firmware loader that takes updates for it (MCUboot 2.1
        /// and later, `MCUBOOT_BOOTLOADER_MODE_FIRMWARE_UPDATER`). Both the application and the loader answer it.
        case firmwareLoader = 7
        case singleSlotRAMLoad = 8
        case swapUsingOffset = 9

        /// e.g. "firmware loader (7)".
        public var description: String {
            let name = switch self {
            case .unknown: "unknown"
            case .singleSlot: "single slot"
            case .swapUsingScratch: "swap using scratch"
            case .overwriteOnly: "overwrite only"
            case .swapUsingMove: "swap using move"
            case .directXIP: "direct XIP"
            case .directXIPWithRevert: "direct XIP with revert"
            case .ramLoad: "RAM load"
            case .firmwareLoader: "firmware loader"
            case .singleSlotRAMLoad: "single slot RAM load"
            case .swapUsingOffset: "swap using offset"
            }
            return "\(name) (\(rawValue))"
        }
    }

    /// `bootloader`, e.g. "MCUboot" (absent in the answer to `query: "mode"`).
    public var bootloader: String?
    /// `mode` as sent (nil: not in the answer).
    public var modeNumber: Int?
    /// `no-downgrade`: MCUboot refuses an image older than the one it runs.
    public var noDowngrade: Bool

    /// An answer.
    public init(bootloader: String? = nil, modeNumber: Int? = nil, noDowngrade: Bool = false) {
        self.bootloader = bootloader
        self.modeNumber = modeNumber
        self.noDowngrade = noDowngrade
    }

    /// The mode, when the answer gives one this tool knows.
    public var mode: Mode? { modeNumber.flatMap(Mode.init(rawValue:)) }

    /// e.g. "mode firmware loader (7)" or "bootloader MCUboot".
    public var description: String {
        var parts: [String] = []
        if let bootloader { parts.append("bootloader " + String(bootloader.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(40))) }
        if let modeNumber { parts.append("mode " + (mode?.description ?? "\(modeNumber)")) }
        if noDowngrade { parts.append("no-downgrade") }
        return parts.isEmpty ? "no bootloader information" : parts.joined(separator: ", ")
    }
}
