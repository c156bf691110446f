public import BlueZStandIn
public import DFUCore
public import DFUSimulator

extension SimulatedDeviceSpec {
    /// The simulated device as the peripheral runs it: its chip at `address` (the adapter's own,
    /// whatever `address=` said), starting in its application or its bootloader as its kind says.
    ///
    /// The central counts as bonded for `buttonless-bonded` (bluetoothd does the pairing; the
    /// firmware only needs to know the link is bonded).
    public func makePeripheral(address: DFUDeviceAddress) -> SimulatedPeripheral {
        var profile = profile
        profile.address = address
        profile.isBonded = kind == .buttonlessBonded
        return SimulatedPeripheral(profile: profile, storage: storage, startInBootloader: kind.startsInBootloader)
    }
}
