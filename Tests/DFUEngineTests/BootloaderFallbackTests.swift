import DFUCore
import DFUSimulator
import Testing
import DFUFormats

/// An nRF5 update named by address takes the address + 1 only as a DFU bootloader, and only when
/// nothing advertises at the address named: a device left in its bootloader, never another device.
@Suite struct BootloaderFallbackTests {
    static let named = DFUDeviceAddress("C0:FF:EE:00:00:10") ?? Fixtures.address
    static let next = DFUDeviceAddress("C0:FF:EE:00:00:11") ?? Fixtures.address
    static let package = DFUPackage(format: .secure, parts: [Fixtures.securePart(size: 1_000)])
    static let secureService = DFUServiceUUIDs().secureService

    /// A Secure device whose application has the address `address` (buttonless without bonds), running it or
    /// waiting in its bootloader: at `address` + 1, or at `address` itself with `keepsAddress`.
    static func device(_ address: DFUDeviceAddress, inBootloader: Bool, keepsAddress: Bool = false,
                       application: (inout SimulatedButtonlessApplication) -> Void = { _ in }) -> SimulatedPeripheral {
        var app = SimulatedButtonlessApplication(variant: .withoutBonds)
        application(&app)
        var configuration = SecureBootloaderConfiguration()
        configuration.requiresBonds = keepsAddress
        let profile = SimulatedDeviceProfile(address: address, bootloader: .secure(configuration),
                                             application: .buttonless(app), isBonded: keepsAddress)
        return SimulatedPeripheral(profile: profile, storage: SimulatedStorage(softdeviceID: 0x0100), startInBootloader: inBootloader)
    }

    @Test func anApplicationAtAddressPlusOneIsLeftAloneEvenWhenItAdvertisesTheDFUService() async throws {
        // Another board's buttonless application, advertising FE59 (its buttonless characteristic is in that service).
        let other = Self.device(Self.next, inBootloader: false) { $0.otherServices = [.other(Self.secureService)] }
        let transport = SimulatedTransport(peripherals: [other])
        let runner = DFURunner(transport: transport, clock: transport.clock, options: Fixtures.options { $0.scanTimeout = .seconds(3) })
        await #expect(throws: DFUError.deviceNotFound(selector: .address(Self.named), after: .seconds(3))) {
            _ = try await runner.update(Self.package, device: .address(Self.named))
        }
        let writes = transport.trace.filter { if case .write = $0.event { true } else { false } }
        #expect(writes.isEmpty, "nothing written to \(Self.next): \(writes)")
        #expect(transport.peripheral().storage.application == [0xA5], "its application is untouched")
    }

    @Test func theDeviceNamedIsTakenRatherThanABootloaderAtAddressPlusOne() async throws {
        // Listed first, and heard as soon: another board waiting in its bootloader at the address + 1
        // (its application's address is the one named, but it is not there); the device named waits in
        // a bootloader that keeps its address.
        let other = Self.device(Self.named, inBootloader: true)
        let named = Self.device(Self.named, inBootloader: true, keepsAddress: true)
        let transport = SimulatedTransport(peripherals: [other, named])
        let runner = DFURunner(transport: transport, clock: transport.clock, options: Fixtures.options())
        _ = try await runner.update(Self.package, device: .address(Self.named))
        #expect(transport.peripheral(1).storage.application?.count == 1_000, "the device named was updated")
        #expect(transport.peripheral(0).storage.application == [0xA5], "the bootloader at the address + 1 was not")
    }

    @Test func aDeviceLeftInItsBootloaderAtAddressPlusOneIsUpdated() async throws {
        let left = Self.device(Self.named, inBootloader: true)  // its bootloader advertises at the address + 1
        let transport = SimulatedTransport(peripherals: [left])
        let runner = DFURunner(transport: transport, clock: transport.clock, options: Fixtures.options())
        _ = try await runner.update(Self.package, device: .address(Self.named))
        #expect(transport.peripheral().storage.application?.count == 1_000)
    }

    @Test func aFallbackAddressMatchesOnlyADFUBootloadersAdvertisement() {
        let selector = DFUDeviceSelector.address(Self.named, orBootloaderAdvertising: DFUServiceUUIDs().bootloaderServices)
        #expect(selector.match(address: Self.named, name: "Zephyr", serviceUUIDs: []) == .selected)
        #expect(selector.match(address: Self.next, name: "DfuTarg", serviceUUIDs: ["0000fe59-0000-1000-8000-00805f9b34fb"]) == .fallback)
        #expect(selector.match(address: Self.next, name: "Zephyr", serviceUUIDs: ["8D53DC1D-1DB7-4CD3-868B-8A527460AA84"]) == nil,
                "an SMP server is no bootloader")
        #expect(selector.match(address: Self.next, name: "Nordic_Buttonless", serviceUUIDs: ["0000180D-0000-1000-8000-00805F9B34FB"]) == nil)
        #expect(selector.isFallback(Self.next) && !selector.isFallback(Self.named))
        #expect(selector.exact.match(address: Self.next, name: "DfuTarg", serviceUUIDs: [DFUServiceUUIDs().secureService]) == nil)
        #expect(selector.exact == .address(Self.named))
    }
}
