import DFUCore
import Testing

/// Which advertisement the runner takes for the bootloader after a buttonless jump.
@Suite struct DeviceSelectorTests {
    static let application = DFUDeviceAddress("C0:FF:EE:00:00:10")
    static let predicted = DFUDeviceAddress("C0:FF:EE:00:00:11")  // the application's address + 1
    static let elsewhere = DFUDeviceAddress("00:AA:01:02:00:02")  // e.g. another controller in the VM

    static func selector(nameAnywhere: Bool) throws -> DFUDeviceSelector {
        var selector = DFUDeviceSelector(addresses: [try #require(predicted)], name: "Dfu12345", serviceUUIDs: ["FE59"])
        selector.nameMatchesAnyAddress = nameAnywhere
        return selector
    }

    @Test func theChosenNameIsAcceptedAtAnAddressNoRulePredicts() throws {
        let selector = try Self.selector(nameAnywhere: true)
        #expect(selector.matches(address: try #require(Self.elsewhere), name: "Dfu12345", serviceUUIDs: ["FE59"]))
    }

    @Test func anotherNameAtAnotherAddressIsNotTheBootloader() throws {
        let selector = try Self.selector(nameAnywhere: true)
        #expect(!selector.matches(address: try #require(Self.elsewhere), name: "DfuTarg", serviceUUIDs: ["FE59"]))
        #expect(!selector.matches(address: try #require(Self.elsewhere), name: nil, serviceUUIDs: ["FE59"]))
    }

    @Test func thePredictedAddressStillMatchesBeforeTheNameIsHeard() throws {
        let selector = try Self.selector(nameAnywhere: true)
        #expect(selector.matches(address: try #require(Self.predicted), name: nil, serviceUUIDs: ["FE59"]))
    }

    @Test func withoutTheFlagTheAddressRuleStaysStrict() throws {
        let selector = try Self.selector(nameAnywhere: false)
        #expect(!selector.matches(address: try #require(Self.elsewhere), name: "Dfu12345", serviceUUIDs: ["FE59"]))
    }

    @Test func theNameMustStillComeWithADFUService() throws {
        let selector = try Self.selector(nameAnywhere: true)
        #expect(!selector.matches(address: try #require(Self.elsewhere), name: "Dfu12345", serviceUUIDs: ["180D"]))
    }
}
