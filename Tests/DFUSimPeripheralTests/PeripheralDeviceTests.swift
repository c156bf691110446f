import DFUCore
import DFUSimCommand
import DFUSimPeripheral
import DFUSimStandIn
import DFUSimulator
import Testing

@Suite struct PeripheralDeviceTests {
    static let address = DFUDeviceAddress("00:AA:01:01:00:01")

    struct StartCase: Sendable, CustomTestStringConvertible {
        let spec: String
        let inBootloader: Bool
        let advertisedName: String
        let serviceUUIDs: [String]
        var testDescription: String { spec }
    }

    static let starts: [StartCase] = [
        StartCase(spec: "secure", inBootloader: true, advertisedName: "DfuTarg",
                  serviceUUIDs: ["0000FE59-0000-1000-8000-00805F9B34FB"]),
        StartCase(spec: "legacy,name=OldBoot", inBootloader: true, advertisedName: "OldBoot",
                  serviceUUIDs: ["00001530-1212-EFDE-1523-785FEABCD123"]),
        StartCase(spec: "buttonless,name=Sensor", inBootloader: false, advertisedName: "Sensor",
                  serviceUUIDs: ["0000180D-0000-1000-8000-00805F9B34FB", "0000FE59-0000-1000-8000-00805F9B34FB"]),
        StartCase(spec: "buttonless-bonded", inBootloader: false, advertisedName: "Nordic_App",
                  serviceUUIDs: ["0000180D-0000-1000-8000-00805F9B34FB", "0000FE59-0000-1000-8000-00805F9B34FB"]),
        StartCase(spec: "buttonless-experimental", inBootloader: false, advertisedName: "Nordic_App",
                  serviceUUIDs: ["0000180D-0000-1000-8000-00805F9B34FB", "8E400001-F315-4F60-9FB8-838830DAEA50"]),
        StartCase(spec: "legacy-app", inBootloader: false, advertisedName: "Nordic_Legacy_App",
                  serviceUUIDs: ["0000180D-0000-1000-8000-00805F9B34FB", "00001530-1212-EFDE-1523-785FEABCD123"]),
    ]

    @Test(arguments: starts)
    func specStartsTheRightFirmware(_ start: StartCase) throws {
        let address = try #require(Self.address)
        let peripheral = try SimulatedDeviceSpec(parsing: start.spec).makePeripheral(address: address)
        #expect(peripheral.inBootloader == start.inBootloader)
        #expect(peripheral.firmware.advertisedName == start.advertisedName)
        #expect(peripheral.firmware.services.map(\.uuid) == start.serviceUUIDs)
    }

    @Test func buttonlessWithoutBondsBootsIntoABootloaderAtAnotherAddress() throws {
        let address = try #require(Self.address)
        var peripheral = try SimulatedDeviceSpec(parsing: "buttonless").makePeripheral(address: address)
        peripheral.boot(into: .bootloader(name: "DfuX"), at: .zero)
        #expect(peripheral.inBootloader)
        #expect(peripheral.address != address)
        #expect(peripheral.firmware.advertisedName == "DfuX")
    }

    @Test func buttonlessWithBondsKeepsTheAddressAndIsBonded() throws {
        let address = try #require(Self.address)
        var peripheral = try SimulatedDeviceSpec(parsing: "buttonless-bonded").makePeripheral(address: address)
        #expect(peripheral.profile.isBonded)
        peripheral.boot(into: .bootloader(name: nil), at: .zero)
        #expect(peripheral.address == address)
        #expect(peripheral.firmware.advertisedName == "DfuTarg")
    }

    @Test func theDeviceTakesTheAdaptersAddressWhateverTheSpecSaid() throws {
        let address = try #require(Self.address)
        let peripheral = try SimulatedDeviceSpec(parsing: "secure,address=C0:FF:EE:00:00:10").makePeripheral(address: address)
        #expect(peripheral.address == address)
        #expect(!peripheral.profile.isBonded)
    }
}
