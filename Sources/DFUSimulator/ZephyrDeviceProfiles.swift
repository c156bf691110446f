public import DFUCore

/// Simulated nRF Connect SDK devices: a Zephyr application with MCUmgr's SMP server above MCUboot.
extension SimulatedDeviceProfile {
    /// An nRF52840 running Zephyr's `smp_svr` with its Bluetooth overlay (reassembly on, buf_size 2475,
    /// buf_count 4) and one image in 472 KB slots (the nRF52840 DK's MCUboot partitions).
    public static func nrf52840Zephyr(address: DFUDeviceAddress, configuration: ZephyrTargetConfiguration = ZephyrTargetConfiguration(),
                                      isBonded: Bool = false) -> SimulatedDeviceProfile {
        SimulatedDeviceProfile(address: address, bootloader: .mcuboot,
                               application: .zephyr(SimulatedZephyrTarget(configuration: configuration)), isBonded: isBonded)
    }

    /// An nRF5340 with two images: the application core's (image 0, swapped, revertible) and the network
    /// core's (image 1, copied over by MCUboot's network core update, which keeps no copy to revert to).
    public static func nrf5340Zephyr(address: DFUDeviceAddress, isBonded: Bool = false) -> SimulatedDeviceProfile {
        nrf52840Zephyr(address: address, configuration: .nrf5340, isBonded: isBonded)
    }
}

extension ZephyrTargetConfiguration {
    /// An nRF5340's two images: the application core's (swapped, revertible) and the network core's (copied over
    /// by MCUboot's network core update, no revert); slot sizes as in a typical NCS partition layout (an assumption);
    /// with known issue NCSDK-34106 (nRF Connect SDK 2.6.0–3.4.0): the network core marked after the application core
    /// is not updated.
    public static var nrf5340: ZephyrTargetConfiguration {
        var configuration = ZephyrTargetConfiguration()
        configuration.images = [
            Image(slotSize: 0x7_0000),
            Image(slotSize: 0x4_0000, revertible: false),
        ]
        configuration.skipsNetworkCoreMarkedAfterApplication = true
        return configuration
    }
}

extension LinkModel {
    /// An nRF52840-like link for SMP: LE 2M, ATT MTU 498 (`BT_L2CAP_TX_MTU` of `smp_svr`'s overlay), a 15 ms
    /// interval, nRF52840 flash timings.
    public static var nrf52840SMP: LinkModel {
        var link = LinkModel()
        link.phy = .le2M
        link.mtu = 498
        link.connectionInterval = .milliseconds(15)
        return link
    }
}
