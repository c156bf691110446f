/// How a simulated device in MCUboot's firmware loader mode is built (``ZephyrTargetConfiguration/firmwareLoader``):
/// one application slot (0), the firmware loader in slot 1, and what the application, the loader and MCUboot do.
///
/// Sources (docs/conformance-mcuboot.md, "Firmware loader mode"): mcuboot `boot/zephyr/firmware_loader.c` (`boot_go`)
/// and `boot/zephyr/io.c` (`io_detect_boot_mode`); zephyr `os_mgmt.c` (`os_mgmt_reset`, `os_mgmt_bootloader_info`)
/// and `img_mgmt_state.c` (the firmware loader build's image list); the nRF Connect SDK's
/// `samples/mcuboot/firmware_loader_entrance` (its `ble_mcumgr` loader) and the Bare Metal option's
/// `applications/firmware_loader/ble_mcumgr` and `samples/boot/mcuboot_recovery_entry`.
public struct FirmwareLoaderConfiguration: Sendable {
    /// Where the loader advertises.
    public enum AddressRule: Sendable, Hashable {
        /// The application's address (the nRF Connect SDK's loader keeps the chip's identity; inferred from its
        /// sample, which sets no address).
        case same
        /// The application's address with bit 0 of its last byte inverted (the Bare Metal option's loader,
        /// `ble_change_address`).
        case lowestBitInverted
    }

    /// The loader's advertised name: "FW loader" (`CONFIG_BT_DEVICE_NAME` of the nRF Connect SDK's `ble_mcumgr`
    /// loader); the Bare Metal option's is "nRF_BM_MCUmgr".
    public var name = "FW loader"
    /// Where the loader advertises.
    public var address = AddressRule.same
    /// `MCUMGR_GRP_OS_RESET_BOOT_MODE` in the application: its reset takes `boot_mode` (Zephyr 4.2 and later);
    /// without it the field is ignored and the application starts again.
    public var resetTakesBootMode = true
    /// Whether the application has an image group (the samples' applications have none: their image list is answered
    /// MGMT_ERR_ENOTSUP); with one it lists, as a firmware loader build does, the other slot, then its own.
    public var applicationListsImages = false
    /// `BOOT_FIRMWARE_LOADER_NO_APPLICATION` (always on in the Bare Metal option): MCUboot starts the loader when the
    /// application does not pass its check; without it nothing starts and the device stays silent.
    public var startsLoaderWithoutApplication = true
    /// Bytes of the loader's slot (slot 1), answered by slot info.
    public var loaderSlotSize = 0x3_F000
    /// The loader's receive buffer (`MCUMGR_TRANSPORT_NETBUF_SIZE` 1220 in the `ble_mcumgr` loader's `prj.conf`).
    public var loaderBufferSize = 1220

    /// Fault: after the reset into the loader, nothing advertises (a loader that does not start its radio).
    public var loaderNeverAdvertises = false

    /// The nRF Connect SDK's: same address, "FW loader", an application without an image group.
    public init() {}

    /// The Bare Metal option's (sdk-nrf-bm, nRF54L with the S115 SoftDevice): the loader at the address with its lowest
    /// bit inverted, advertising "nRF_BM_MCUmgr"; MCUboot always falls back to the loader.
    public static var bareMetal: FirmwareLoaderConfiguration {
        var configuration = FirmwareLoaderConfiguration()
        configuration.name = "nRF_BM_MCUmgr"
        configuration.address = .lowestBitInverted
        configuration.loaderSlotSize = 0x1_0000
        return configuration
    }
}
