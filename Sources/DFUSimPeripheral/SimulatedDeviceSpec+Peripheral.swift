public import DFUCore
public import DFUSimStandIn
public import DFUSimulator

extension SimulatedDeviceSpec {
    /// The simulated device as the peripheral runs it: its chip at `address` (the adapter's own,
    /// whatever `address=` said), starting in its application or its bootloader as its kind says.
    ///
    /// The central counts as bonded for `buttonless-bonded` and the SMP kinds (bluetoothd does the
    /// pairing and, for SMP, enforces the characteristic's security; the firmware only needs to know
    /// the link is bonded).
    public func makePeripheral(address: DFUDeviceAddress) -> SimulatedPeripheral {
        var profile = profile
        profile.address = address
        // An SMP device's security is bluetoothd's to enforce (the characteristic's flags): what reaches the
        // firmware came over a link with the security it asked for.
        profile.isBonded = kind == .buttonlessBonded || kind.isSMP
        return SimulatedPeripheral(profile: profile, storage: storage, startInBootloader: kind.startsInBootloader)
    }
}
