import DBus
import DFUCore
@testable import DFUSimStandIn
import Testing

/// `smp-auth` on the stand-in: Zephyr's SMP characteristic under `CONFIG_MCUMGR_TRANSPORT_BT_PERM_RW_AUTHEN`
/// (writes without the security dropped, the CCCD write refused with ATT 0x05), and bluetoothd 5.66's pairing:
/// the agent it asks and the user step the IO capabilities give, through Pair or by raising the link's security
/// when the subscription is refused.
@Suite(.serialized, .enabled(if: dbusDaemonInstalled, "needs dbus-daemon"))
struct SMPPairingTests {
    static let notPaired = DBusError(name: "org.bluez.Error.NotPermitted", message: "Not paired")
    static let authenticationFailed = DBusError(
        name: "org.bluez.Error.AuthenticationFailed", message: "Authentication Failed")

    /// Without any agent bluetoothd cannot pair at all (even Just Works asks an agent): the subscription is
    /// refused ("Not paired"), Pair fails; writes meanwhile vanish.
    @Test func withoutAnAgentTheSubscriptionIsRefusedAndWritesVanish() async throws {
        try await withStandIn(devices: ["smp-auth"]) { bus in
            let session = try await SMPSessionByHand(bus, subscribe: false)
            try await session.write(try session.frame(.echo("unheard")).bytes)
            await #expect(throws: Self.notPaired) { try await session.subscribe() }
            #expect(try await bus.property("Paired", of: BlueZNames.device, at: session.device).boolValue == false)
            await #expect(throws: Self.authenticationFailed) {
                _ = try await bus.call(session.device, BlueZNames.device, "Pair")
            }
            #expect(
                try await bus.property("Notifying", of: BlueZNames.gattCharacteristic, at: session.characteristic)
                    .boolValue == false)
            let entry = try #require(await bus.standIn.report().devices.first)
            #expect(entry.stats.smp?.requests == 0, "the write never reached the SMP server")
        }
    }

    /// Pair with the caller's own KeyboardDisplay agent and a DisplayOnly device: passkey entry on the host
    /// (RequestPasskey); the right passkey makes authenticated keys and the SMP characteristic works.
    @Test func pairAsksTheCallersAgentForThePasskeyAndOpensTheCharacteristic() async throws {
        try await withStandIn(devices: ["smp-auth,passkey=654321"]) { bus in
            let session = try await SMPSessionByHand(bus, subscribe: false)
            let agent = try await PairingAgentByHand(bus, capability: "KeyboardDisplay", passkey: 654_321)
            _ = try await bus.call(session.device, BlueZNames.device, "Pair")
            #expect(agent.received == ["RequestPasskey \(session.device.rawValue)"])
            #expect(try await bus.property("Paired", of: BlueZNames.device, at: session.device).boolValue == true)
            #expect(try await bus.property("Bonded", of: BlueZNames.device, at: session.device).boolValue == true)
            try await session.subscribe()
            #expect(try await session.send(.echo("paired")) == .echo("paired"))
        }
    }

    @Test func aWrongOrRefusedPasskeyFailsThePairing() async throws {
        try await withStandIn(devices: ["smp-auth"]) { bus in
            let session = try await SMPSessionByHand(bus, subscribe: false)
            _ = try await PairingAgentByHand(bus, capability: "KeyboardOnly", passkey: 111_111)
            await #expect(throws: Self.authenticationFailed) {
                _ = try await bus.call(session.device, BlueZNames.device, "Pair")
            }
            #expect(try await bus.property("Paired", of: BlueZNames.device, at: session.device).boolValue == false)
        }
        try await withStandIn(devices: ["smp-auth"]) { bus in
            let session = try await SMPSessionByHand(bus, subscribe: false)
            _ = try await PairingAgentByHand(bus, capability: "KeyboardDisplay", rejects: true)
            await #expect(throws: Self.authenticationFailed) {
                _ = try await bus.call(session.device, BlueZNames.device, "Pair")
            }
        }
    }

    /// A NoInputNoOutput agent pairs by Just Works with no agent call during Pair: enough for
    /// `security=encrypted` (`_PERM_RW_ENCRYPT`), not for `smp-auth`'s authenticated default. Raised by
    /// bluetoothd itself (no Pair), Just Works asks the default agent's RequestAuthorization.
    @Test func justWorksOpensAnEncryptedCharacteristicButNotAnAuthenticatedOne() async throws {
        try await withStandIn(devices: ["smp-auth"]) { bus in
            let session = try await SMPSessionByHand(bus, subscribe: false)
            let agent = try await PairingAgentByHand(bus, capability: "NoInputNoOutput")
            _ = try await bus.call(session.device, BlueZNames.device, "Pair")
            #expect(agent.received.isEmpty)
            await #expect(throws: Self.notPaired) { try await session.subscribe() }
        }
        try await withStandIn(devices: ["smp,security=encrypted"]) { bus in
            let session = try await SMPSessionByHand(bus, subscribe: false)
            _ = try await PairingAgentByHand(bus, capability: "NoInputNoOutput")
            _ = try await bus.call(session.device, BlueZNames.device, "Pair")
            try await session.subscribe()
            #expect(try await session.send(.echo("encrypted")) == .echo("encrypted"))
        }
        try await withStandIn(devices: ["smp,security=encrypted"]) { bus in
            let session = try await SMPSessionByHand(bus, subscribe: false)
            let agent = try await PairingAgentByHand(bus, capability: "NoInputNoOutput", asDefault: true)
            try await session.subscribe()
            #expect(agent.received == ["RequestAuthorization \(session.device.rawValue)"])
            #expect(try await session.send(.echo("raised")) == .echo("raised"))
        }
        try await withStandIn(devices: ["smp,security=encrypted"]) { bus in
            let session = try await SMPSessionByHand(bus, subscribe: false)
            _ = try await PairingAgentByHand(bus, capability: "NoInputNoOutput", rejects: true, asDefault: true)
            await #expect(throws: Self.notPaired) { try await session.subscribe() }
        }
    }

    /// No Pair: StartNotify is refused with 0x05, bluetoothd raises the security and the kernel pairs asking the
    /// default agent; the retried subscription works and the device is paired.
    @Test func aRefusedSubscriptionRaisesSecurityThroughTheDefaultAgent() async throws {
        try await withStandIn(devices: ["smp-auth"]) { bus in
            let session = try await SMPSessionByHand(bus, subscribe: false)
            let agent = try await PairingAgentByHand(bus, capability: "KeyboardDisplay", asDefault: true)
            try await session.subscribe()
            #expect(agent.received == ["RequestPasskey \(session.device.rawValue)"])
            #expect(try await bus.property("Paired", of: BlueZNames.device, at: session.device).boolValue == true)
            #expect(try await session.send(.echo("raised")) == .echo("raised"))
        }
    }

    /// A client that subscribes first without any agent is refused, and the refused raise leaves no bond behind
    /// (no agent: the pairing fails); it then registers its own KeyboardOnly agent and pairs: Pair asks that agent
    /// for the passkey and the next subscription works.
    @Test func aRefusedSubscriptionThenPairWithTheCallersAgentOpensTheCharacteristic() async throws {
        try await withStandIn(devices: ["smp-auth,passkey=654321"]) { bus in
            let session = try await SMPSessionByHand(bus, subscribe: false)
            await #expect(throws: Self.notPaired) { try await session.subscribe() }
            #expect(try await bus.property("Paired", of: BlueZNames.device, at: session.device).boolValue == false)
            let agent = try await PairingAgentByHand(bus, capability: "KeyboardOnly", passkey: 654_321)
            _ = try await bus.call(session.device, BlueZNames.device, "Pair")
            #expect(agent.received == ["RequestPasskey \(session.device.rawValue)"])
            try await session.subscribe()
            #expect(try await session.send(.echo("after pairing")) == .echo("after pairing"))
        }
    }

    /// The first agent registered is the default without RequestDefaultAgent (BlueZ 5.66 `src/agent.c`
    /// `agent_create`: an empty default queue takes it), so it is asked when bluetoothd raises the security.
    @Test func theOnlyRegisteredAgentIsTheDefaultAndIsAskedForASecurityRaise() async throws {
        try await withStandIn(devices: ["smp-auth"]) { bus in
            let session = try await SMPSessionByHand(bus, subscribe: false)
            let agent = try await PairingAgentByHand(bus, capability: "KeyboardDisplay")
            try await session.subscribe()
            #expect(agent.received == ["RequestPasskey \(session.device.rawValue)"])
        }
    }

    /// Without any agent bluetoothd's own pairing cannot authenticate (no agent: NoInputNoOutput, Just Works),
    /// so the subscription is refused.
    @Test func withoutAnyAgentASecurityRaiseCannotAuthenticate() async throws {
        try await withStandIn(devices: ["smp-auth"]) { bus in
            let session = try await SMPSessionByHand(bus, subscribe: false)
            await #expect(throws: Self.notPaired) { try await session.subscribe() }
        }
    }

    /// A DisplayYesNo device and a KeyboardDisplay agent: numeric comparison (RequestConfirmation with the
    /// value); a KeyboardOnly device and a DisplayOnly agent: the host shows the passkey (DisplayPasskey).
    @Test func numericComparisonAndADisplayedPasskeyAskTheAgentAccordingly() async throws {
        try await withStandIn(devices: ["smp-auth,io=DisplayYesNo,passkey=42"]) { bus in
            let session = try await SMPSessionByHand(bus, subscribe: false)
            let agent = try await PairingAgentByHand(bus, capability: "KeyboardDisplay")
            _ = try await bus.call(session.device, BlueZNames.device, "Pair")
            #expect(agent.received == ["RequestConfirmation \(session.device.rawValue) 42"])
            try await session.subscribe()
        }
        try await withStandIn(devices: ["smp-auth,io=keyboard-only"]) { bus in
            let session = try await SMPSessionByHand(bus, subscribe: false)
            let agent = try await PairingAgentByHand(bus, capability: "DisplayOnly")
            _ = try await bus.call(session.device, BlueZNames.device, "Pair")
            try await bus.waitUntil("DisplayPasskey") { !agent.received.isEmpty }
            #expect(agent.received.first?.hasPrefix("DisplayPasskey \(session.device.rawValue) ") == true)
            #expect(agent.received.first?.hasSuffix(" 0") == true, "entered 0")
            try await session.subscribe()
        }
    }

    /// `src/agent.c`: one agent per client; UnregisterAgent and RequestDefaultAgent name its path.
    @Test func oneAgentPerClientAndItsPathNamesIt() async throws {
        try await withStandIn(devices: []) { bus in
            let root = try ObjectPath("/org/bluez")
            _ = try await PairingAgentByHand(bus, capability: "")
            await #expect(throws: DBusError(name: "org.bluez.Error.AlreadyExists", message: "Already Exists")) {
                _ = try await bus.call(
                    root, BlueZNames.agentManager, "RegisterAgent",
                    [.objectPath(try ObjectPath("/test/other")), .string("DisplayOnly")])
            }
            await #expect(throws: DBusError(name: "org.bluez.Error.DoesNotExist", message: "Does Not Exist")) {
                _ = try await bus.call(
                    root, BlueZNames.agentManager, "RequestDefaultAgent", [.objectPath(try ObjectPath("/test/other"))])
            }
            await #expect(throws: DBusError(name: "org.bluez.Error.InvalidArguments", message: "Invalid arguments in method call")) {
                _ = try await bus.call(root, BlueZNames.agentManager, "UnregisterAgent", [.objectPath(try ObjectPath("/test/agent"))])
                _ = try await bus.call(
                    root, BlueZNames.agentManager, "RegisterAgent",
                    [.objectPath(try ObjectPath("/test/agent")), .string("Telepathic")])
            }
        }
    }

    /// The LE Secure Connections table (Core Vol 3 Part H 2.3.5.1), host as initiator.
    @Test func theMethodFollowsTheIOCapabilities() {
        typealias C = PairingMethod.Capability
        #expect(PairingMethod(initiator: .keyboardDisplay, responder: .displayOnly) == .passkeyEnteredOnHost)
        #expect(PairingMethod(initiator: .keyboardOnly, responder: .displayYesNo) == .passkeyEnteredOnHost)
        #expect(PairingMethod(initiator: .displayOnly, responder: .keyboardOnly) == .passkeyShownOnHost)
        #expect(PairingMethod(initiator: .keyboardDisplay, responder: .keyboardOnly) == .passkeyShownOnHost)
        #expect(PairingMethod(initiator: .displayYesNo, responder: .displayYesNo) == .numericComparison)
        #expect(PairingMethod(initiator: .keyboardDisplay, responder: .keyboardDisplay) == .numericComparison)
        #expect(PairingMethod(initiator: .displayYesNo, responder: .displayOnly) == .justWorks)
        for capability in C.allCases {
            #expect(PairingMethod(initiator: .noInputNoOutput, responder: capability) == .justWorks)
            #expect(PairingMethod(initiator: capability, responder: .noInputNoOutput) == .justWorks)
        }
        #expect(C(agentCapability: "") == .keyboardDisplay)
        #expect(C(agentCapability: "Telepathic") == nil)
        #expect(C(spec: "display-yes-no") == .displayYesNo)
    }
}
