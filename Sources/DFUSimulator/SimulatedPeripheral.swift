public import DFUCore

/// One simulated nRF5 device: its profile, its flash, what it currently runs, and at which address.
public struct SimulatedPeripheral: Sendable {
    /// What it is built from.
    public let profile: SimulatedDeviceProfile
    /// Its flash.
    public var storage: SimulatedStorage
    /// What runs now.
    public var firmware: any SimulatedFirmware
    /// The address it advertises now.
    public var address: DFUDeviceAddress
    /// Virtual time from which it advertises (after a boot).
    public var availableFrom: Duration = .zero
    /// Whether it is in its bootloader.
    public private(set) var inBootloader: Bool

    /// A device running its application (or its bootloader when `startInBootloader` or no application).
    public init(profile: SimulatedDeviceProfile, storage: SimulatedStorage = SimulatedStorage(), startInBootloader: Bool = false) {
        self.profile = profile
        self.storage = storage
        if !startInBootloader, storage.application != nil {
            firmware = profile.applicationFirmware
            address = profile.address
            inBootloader = false
        } else {
            let (bootloader, address) = profile.bootloaderFirmware(name: nil)
            firmware = bootloader
            self.address = address
            inBootloader = true
        }
    }

    /// Resets into `target`; it advertises again from `time`.
    public mutating func boot(into target: SimulatedBootTarget, at time: Duration, flash: FlashTimings = FlashTimings()) {
        availableFrom = time
        // MCUboot has no Bluetooth of its own: every reset runs its swap and boots the application again (or, in
        // firmware loader mode, whichever MCUboot starts).
        if let zephyr = firmware as? SimulatedZephyrTarget {
            let (next, swapTime) = zephyr.afterReset(flash: flash)
            firmware = next
            availableFrom = time + swapTime
            address = next.advertisingAddress(chip: profile.address)
            inBootloader = false
            return
        }
        switch target {
        case .application where storage.application != nil:
            firmware = profile.applicationFirmware
            address = profile.address
            inBootloader = false
        case .application, .bootloader:
            var name: String?
            if case .bootloader(let chosen) = target { name = chosen }
            let (bootloader, address) = profile.bootloaderFirmware(name: name)
            firmware = bootloader
            self.address = address
            inBootloader = true
        }
    }
}
