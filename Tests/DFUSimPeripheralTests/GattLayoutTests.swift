import DBus
import DFUCore
import DFUSimPeripheral
import DFUSimulator
import Testing

@Suite struct GattLayoutTests {
    static func layout(_ firmware: any SimulatedFirmware, acquireWrite: Bool = true, acquireNotify: Bool = false)
        throws -> GattLayout
    {
        try GattLayout(
            services: firmware.services, root: try ObjectPath("/app"), acquireWrite: acquireWrite,
            acquireNotify: acquireNotify)
    }

    struct FlagCase: Sendable, CustomTestStringConvertible {
        let name: String
        let firmware: any SimulatedFirmware
        /// UUID → flags, as the nRF5 SDK's bootloaders and buttonless services declare them.
        let flags: [String: [String]]
        var testDescription: String { name }
    }

    static let flagCases: [FlagCase] = [
        FlagCase(name: "Secure bootloader", firmware: SimulatedSecureBootloader(), flags: [
            "8EC90001-F315-4F60-9FB8-838830DAEA50": ["write", "notify"],
            // SDK 15–17 nrf_dfu_ble.c dfu_pkt_char_add: write without response only.
            "8EC90002-F315-4F60-9FB8-838830DAEA50": ["write-without-response"],
        ]),
        FlagCase(name: "Legacy bootloader", firmware: SimulatedLegacyBootloader(), flags: [
            "00001531-1212-EFDE-1523-785FEABCD123": ["write", "notify"],
            "00001532-1212-EFDE-1523-785FEABCD123": ["write-without-response"],
            "00001534-1212-EFDE-1523-785FEABCD123": ["read"],
        ]),
        FlagCase(name: "buttonless without bonds", firmware: SimulatedButtonlessApplication(variant: .withoutBonds), flags: [
            "8EC90003-F315-4F60-9FB8-838830DAEA50": ["write", "indicate"],
        ]),
        FlagCase(name: "buttonless with bonds", firmware: SimulatedButtonlessApplication(variant: .withBonds), flags: [
            "8EC90004-F315-4F60-9FB8-838830DAEA50": ["write", "indicate"],
        ]),
        FlagCase(name: "experimental buttonless", firmware: SimulatedButtonlessApplication(variant: .experimental), flags: [
            "8E400001-F315-4F60-9FB8-838830DAEA50": ["write", "notify"],
        ]),
    ]

    @Test(arguments: flagCases)
    func dfuCharacteristicsHaveTheFirmwaresFlags(_ flagCase: FlagCase) throws {
        let layout = try Self.layout(flagCase.firmware)
        for (uuid, flags) in flagCase.flags {
            let characteristic = try #require(layout.characteristic(simulatedUUID: uuid))
            #expect(characteristic.flags == flags, "\(uuid)")
            #expect(characteristic.uuid == uuid)
        }
    }

    @Test func pathsNestCharacteristicsUnderTheirServices() throws {
        let layout = try Self.layout(SimulatedLegacyApplication())
        #expect(layout.services.map(\.path.rawValue) == ["/app/service0", "/app/service1"])
        #expect(layout.services[1].characteristics.map(\.path.rawValue) == [
            "/app/service1/char0", "/app/service1/char1", "/app/service1/char2",
        ])
        #expect(layout.characteristic(at: try ObjectPath("/app/service1/char0"))?.uuid
            == "00001531-1212-EFDE-1523-785FEABCD123")
    }

    @Test func onlyWriteWithoutResponseCharacteristicsOfferAcquireWrite() throws {
        let layout = try Self.layout(SimulatedSecureBootloader())
        let offering = layout.characteristics.filter(\.offersAcquireWrite).map(\.uuid)
        #expect(offering == ["8EC90002-F315-4F60-9FB8-838830DAEA50"])
        #expect(try Self.layout(SimulatedSecureBootloader(), acquireWrite: false).characteristics
            .allSatisfy { !$0.offersAcquireWrite })
    }

    @Test func acquireNotifyIsOfferedOnNotifyCharacteristicsOnlyWhenAsked() throws {
        #expect(try Self.layout(SimulatedSecureBootloader()).characteristics.allSatisfy { !$0.offersAcquireNotify })
        let asked = try Self.layout(SimulatedSecureBootloader(), acquireNotify: true)
        #expect(asked.characteristics.filter(\.offersAcquireNotify).map(\.uuid) == ["8EC90001-F315-4F60-9FB8-838830DAEA50"])
        let indicating = try Self.layout(SimulatedButtonlessApplication(variant: .withoutBonds), acquireNotify: true)
        #expect(indicating.characteristics.allSatisfy { !$0.offersAcquireNotify })
    }

    @Test func writeTypeFollowsTheFlagsBecauseBlueZ566DoesNotSayIt() throws {
        let layout = try Self.layout(SimulatedSecureBootloader())
        let controlPoint = try #require(layout.characteristic(simulatedUUID: "8EC90001-F315-4F60-9FB8-838830DAEA50"))
        let packet = try #require(layout.characteristic(simulatedUUID: "8EC90002-F315-4F60-9FB8-838830DAEA50"))
        #expect(controlPoint.writeType == .request)
        #expect(packet.writeType == .command)
    }

    @Test func everyCharacteristicOfASimulatedFirmwareHasA36CharacterUUID() throws {
        // SimulatedService.other gives its characteristic the service UUID's successor (180D → 180E).
        let layout = try Self.layout(SimulatedButtonlessApplication(variant: .withoutBonds))
        let heartRate = try #require(layout.services.first)
        let characteristic = try #require(heartRate.characteristics.first)
        #expect(characteristic.simulatedUUID == "0000180E-0000-1000-8000-00805F9B34FB")
        #expect(characteristic.uuid == characteristic.simulatedUUID)
        #expect(layout.characteristics.allSatisfy { GattLayout.isValidUUID($0.simulatedUUID) })
    }

    @Test func theSecureBootloaderDeclaresThePacketBeforeTheControlPoint() throws {
        let layout = try Self.layout(SimulatedSecureBootloader())
        #expect(layout.characteristics.map(\.uuid) == [
            "8EC90002-F315-4F60-9FB8-838830DAEA50", "8EC90001-F315-4F60-9FB8-838830DAEA50",
        ])
    }

    @Test(arguments: [
        ("8EC90001-F315-4F60-9FB8-838830DAEA50", true),
        ("0000180D-0000-1000-8000-00805F9B34FB-0001", false),
        ("FE59", false),
        ("8EC90001-F315-4F60-9FB8-838830DAEA5G", false),
    ])
    func uuidValidity(_ text: String, _ valid: Bool) {
        #expect(GattLayout.isValidUUID(text) == valid)
    }
}
