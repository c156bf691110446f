import DFUCore
import Testing

@Suite struct ButtonlessStateMachineTests {
    @Test func namesThenEnters() {
        var machine = ButtonlessStateMachine(variant: .withoutBonds, alternativeName: "Dfu12345")
        // 02 = set name, 08 = length, "Dfu12345".
        #expect(machine.start() == .send(.setAdvertisingName("Dfu12345")))
        #expect(ButtonlessRequest.setAdvertisingName("Dfu12345").bytes == [0x02, 0x08] + Array("Dfu12345".utf8))
        // 20 = response, 02 = set name, 01 = success → 01 = enter.
        #expect(machine.received([0x20, 0x02, 0x01]) == .send(.enterBootloader))
        #expect(machine.received([0x20, 0x01, 0x01]) == .jumped(bootloaderName: "Dfu12345"))
    }

    @Test func sdk13NotSupportedNamingStillEntersWithoutAName() {
        var machine = ButtonlessStateMachine(variant: .withoutBonds, alternativeName: "Dfu12345")
        _ = machine.start()
        // 20 02 02: opcode not supported.
        #expect(machine.received([0x20, 0x02, 0x02]) == .send(.enterBootloader))
        #expect(machine.disconnected() == .jumped(bootloaderName: nil))
    }

    @Test func variantsWithoutNamingGoStraightToEnter() {
        for variant in [ButtonlessVariant.withBonds, .experimental] {
            var machine = ButtonlessStateMachine(variant: variant, alternativeName: "Dfu12345")
            #expect(machine.start() == .send(.enterBootloader))
        }
    }

    @Test func disconnectInsteadOfTheEnterAnswerIsSuccess() {
        var machine = ButtonlessStateMachine(variant: .withBonds, alternativeName: nil)
        _ = machine.start()
        #expect(machine.disconnected() == .jumped(bootloaderName: nil))
    }

    @Test(arguments: [
        ([0x20, 0x02, 0x05], DFUStep.settingAdvertisingName),   // invalid advertisement name
        ([0x20, 0x02, 0x06], .settingAdvertisingName),                            // busy
    ])
    func refusedNameIsAnError(_ bytes: [UInt8], step: DFUStep) {
        var machine = ButtonlessStateMachine(variant: .withoutBonds, alternativeName: "x")
        _ = machine.start()
        guard case .fail(.remote(step, "Set Advertising Name", .buttonless(let status))) = machine.received(bytes) else {
            Issue.record("expected a refusal")
            return
        }
        #expect(status.rawValue == bytes[2])
    }

    @Test func wrongFrameIsAnUnexpectedResponse() {
        var machine = ButtonlessStateMachine(variant: .withBonds, alternativeName: nil)
        _ = machine.start()
        guard case .fail(.unexpectedResponse(.enteringBootloader, [0x60, 0x01, 0x01])) = machine.received([0x60, 0x01, 0x01]) else {
            Issue.record("expected an unexpected response")
            return
        }
    }
}
