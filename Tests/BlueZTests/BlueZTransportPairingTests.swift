import BlueZ
import BlueZTransport
import DBus
import DFUCore
import DFUSimStandIn
import DFUSimulator
import Glibc
import Synchronization
import TestSupport
import Testing

/// Pairing with an nRF Connect SDK device whose SMP characteristic needs an encrypted link (the NCS 3.x
/// default), through BlueZTransport's own agent, against bluetoothd's stand-in (modelled on bluetoothd 5.66): a
/// refused subscription makes bluetoothd pair through the default agent and retry, AcquireNotify is never
/// answered by 5.66 when the device refuses it, Device1.Pair uses the caller's own agent.
@Suite(.timeLimit(.minutes(TestTime.limitMinutes(3)))) struct BlueZTransportPairingTests {
    static let passkey: UInt32 = 123_456

    /// A device whose SMP characteristic needs an encrypted link and which pairs by Just Works (no input, no
    /// output), or, with `passkey`, one that needs authenticated keys and shows that passkey.
    static func encryptedDevice(passkey: UInt32? = nil) -> SimulatedDeviceSpec {
        var pairing = DevicePairing()
        pairing.security = passkey == nil ? .encrypted : .authenticated
        pairing.capability = passkey == nil ? .noInputNoOutput : .displayOnly
        pairing.passkey = passkey ?? 0
        return LiveRig.zephyrDevice(pairing: pairing)
    }

    /// Runs `body` on the stand-in serving `device`, then checks that the transport left no agent registered
    /// and never called the AcquireNotify that 5.66 leaves unanswered.
    static func withEncryptedDevice(
        _ device: SimulatedDeviceSpec = encryptedDevice(), options: StandInRig.Options = StandInRig.Options(),
        configure: (BlueZTransport) async -> Void = { _ in }, _ body: (StandInRig, BlueZTransport) async throws -> Void
    ) async throws {
        let observed = try await LiveRig.withTransport(device, options: options, configure: configure) { rig, transport in
            try await body(rig, transport)
            await transport.close()
            return await rig.observed
        }
        #expect(observed.agents.isEmpty, "the agent is unregistered when the transport closes")
        #expect(observed.refusedAcquireNotify == 0)
    }

    static func pairingFailure(_ result: Result<DFUUpdateReport, DFUError>) -> String? {
        guard case .failure(.transport(_, .pairingFailed(let message))) = result else { return nil }
        return message
    }

    @Test func justWorksHappensWhenBluetoothdRaisesTheSecurityThroughTheTransportsAgent() async throws {
        let image = LiveRig.mcubootImage(size: 10_000)
        try await Self.withEncryptedDevice { rig, transport in
            _ = try await LiveRig.update(try LiveRig.smpPlan(image), over: transport).get()
            try await BlueZTransportSMPTests.expectUpdated(rig, to: image)
            #expect(try await rig.isPaired(LiveRig.address))
            // The host had no agent: the transport's became the default, and bluetoothd asked it.
            #expect(await rig.observed.agentRequests == ["RequestAuthorization"])
            #expect(await rig.observed.pairCalls == 0)
        }
    }

    /// The host's default agent is another client's (a desktop's), whose user declines the pairing bluetoothd
    /// starts on its own: the subscription is refused, and the transport pairs through Device1.Pair, which asks
    /// its own agent.
    @Test func justWorksThroughDevicePairWhenBluetoothdDoesNotPairByItself() async throws {
        let image = LiveRig.mcubootImage(size: 10_000)
        try await StandInRig.with([Self.encryptedDevice()]) { rig in
            let desktop = try Self.openClient(rig)
            defer { desktop.close() }
            let declining = try BlueZAgent(
                client: desktop, capability: .noInputNoOutput,
                answers: BlueZAgent.Answers(passkey: { _ in nil }, accepts: { _, _ in false }))
            try await declining.register()
            let transport = try await BlueZTransport.open(busAddress: rig.address)
            let result = await LiveRig.update(try LiveRig.smpPlan(image), over: transport)
            await transport.close()
            _ = try result.get()
            try await BlueZTransportSMPTests.expectUpdated(rig, to: image)
            #expect(try await rig.isPaired(LiveRig.address))
            #expect(await rig.observed.pairCalls == 1, "paired once; the connection after the swap is already paired")
            #expect(declining.requests == [.authorization], "bluetoothd's own pairing asked the default agent, which declined")
            await declining.unregister()
        }
    }

    @Test(arguments: [false, true])
    func aPasskeyGivenOrPromptedIsTyped(prompted: Bool) async throws {
        let image = LiveRig.mcubootImage(size: 10_000)
        let asked = Mutex<[DFUDeviceAddress]>([])
        let prompt = DFUPasskeyPrompt { address in
            asked.withLock { $0.append(address) }
            return Self.passkey
        }
        try await Self.withEncryptedDevice(Self.encryptedDevice(passkey: Self.passkey), configure: { transport in
            await transport.setPairing(passkey: prompted ? nil : Self.passkey, prompt: prompted ? prompt : nil)
        }) { rig, transport in
            _ = try await LiveRig.update(try LiveRig.smpPlan(image), over: transport).get()
            try await BlueZTransportSMPTests.expectUpdated(rig, to: image)
            #expect(await rig.observed.agentRequests == ["RequestPasskey"])
            #expect(asked.withLock { $0 } == (prompted ? [LiveRig.address] : []))
        }
    }

    /// A person typing the passkey while bluetoothd pairs on its own takes longer than bluetoothd's other
    /// answers: the subscription waits for the pairing, not the usual call timeout (1 s here).
    @Test func aPromptAnsweredSlowlyDuringBluetoothdsOwnPairingStillPairs() async throws {
        let image = LiveRig.mcubootImage(size: 5_000)
        try await StandInRig.with([Self.encryptedDevice(passkey: Self.passkey)]) { rig in
            var client = try BlueZClient.open(busAddress: rig.address)
            client.callTimeout = .seconds(1)
            let transport = try await BlueZTransport.open(client: client, ownsClient: true)
            await transport.setPairing(passkey: nil, prompt: DFUPasskeyPrompt { _ in
                try? await Task.sleep(for: .milliseconds(1_500))
                return Self.passkey
            })
            let result = await LiveRig.update(try LiveRig.smpPlan(image), over: transport)
            await transport.close()
            _ = try result.get()
            try await BlueZTransportSMPTests.expectUpdated(rig, to: image)
            let observed = await rig.observed
            #expect(observed.agentRequests == ["RequestPasskey"])
            #expect(observed.pairCalls == 0, "bluetoothd paired on its own, through the transport's agent")
            #expect(observed.agents.isEmpty)
        }
    }

    @Test func aWrongPasskeyIsAClearPairingErrorNamingThePasskey() async throws {
        try await Self.withEncryptedDevice(
            Self.encryptedDevice(passkey: Self.passkey), configure: { await $0.setPairing(passkey: 111_111, prompt: nil) }
        ) { rig, transport in
            let start = ContinuousClock.now
            let result = await LiveRig.update(try LiveRig.smpPlan(LiveRig.mcubootImage()), over: transport)
            let message = try #require(Self.pairingFailure(result), "\(result)")
            #expect(message.contains("pairing with \(LiveRig.address) failed"), "\(message)")
            #expect(message.contains("check the passkey given with --passkey"), "\(message)")
            // Sooner than the 10 s an unanswered AcquireNotify would take (DFU_TEST_TIME_SCALE: make test-sanitize).
            #expect(ContinuousClock.now - start < TestTime.scaled(.seconds(8)))
            #expect(try await !rig.isPaired(LiveRig.address))
            #expect(await rig.observed.pairCalls == 1, "a pairing failure is not retried")
        }
    }

    @Test func aDeviceAskingForAPasskeyWithoutOneSaysToGiveIt() async throws {
        let prompt = DFUPasskeyPrompt { _ in nil }  // the person pressed Enter without typing one
        try await Self.withEncryptedDevice(
            Self.encryptedDevice(passkey: Self.passkey), configure: { await $0.setPairing(passkey: nil, prompt: prompt) }
        ) { _, transport in
            let result = await LiveRig.update(try LiveRig.smpPlan(LiveRig.mcubootImage()), over: transport)
            let message = try #require(Self.pairingFailure(result), "\(result)")
            #expect(message.contains("give the one it shows with --passkey"), "\(message)")
        }
    }

    /// No passkey and no prompt: the agent is NoInputNoOutput, so the pairing is Just Works (LE Secure Connections'
    /// table), whose keys are not authenticated. A device that keeps that bond still refuses its characteristic; one
    /// that ends the link instead (as a Zephyr server was seen doing) leaves no bond. Either way the user is told to
    /// give the passkey, and no bond is left behind.
    @Test(arguments: [false, true])
    func aDeviceThatWantsAPasskeyCannotPairJustWorks(deviceEndsTheLink: Bool) async throws {
        var device = Self.encryptedDevice(passkey: Self.passkey)
        device.pairing.dropsWeakPairing = deviceEndsTheLink
        try await Self.withEncryptedDevice(device) { rig, transport in
            let result = await LiveRig.update(try LiveRig.smpPlan(LiveRig.mcubootImage()), over: transport)
            let message = try #require(Self.pairingFailure(result), "\(result)")
            #expect(message.contains("\(LiveRig.address)"), "\(message)")
            #expect(message.contains("passkey it shows with --passkey"), "\(message)")
            #expect(try await !rig.isPaired(LiveRig.address))
        }
    }

    @Test func aDeviceRefusingToPairIsAClearErrorAndNothingIsSent() async throws {
        var options = StandInRig.Options()
        options.faults.pairingFails = true
        try await Self.withEncryptedDevice(options: options) { rig, transport in
            let result = await LiveRig.update(try LiveRig.smpPlan(LiveRig.mcubootImage()), over: transport)
            let message = try #require(Self.pairingFailure(result), "\(result)")
            #expect(message.contains("Authentication Failed"), "\(message)")
            let target = try #require(try await rig.firmware as? SimulatedZephyrTarget)
            #expect(target.slots[0].secondaryBlank)
            #expect(target.refusedWrites == 0, "no request was written to a link the device refuses")
        }
    }

    @Test func aDeviceThatNeedsNoPairingIsNotPaired() async throws {
        try await LiveRig.withTransport(LiveRig.zephyrDevice()) { rig, transport in
            _ = try await LiveRig.update(try LiveRig.smpPlan(LiveRig.mcubootImage(size: 5_000)), over: transport).get()
            #expect(try await !rig.isPaired(LiveRig.address))
            #expect(await rig.observed.pairCalls == 0)
            #expect(await rig.observed.agentRequests.isEmpty)
            await transport.close()
            #expect(await rig.observed.agents.isEmpty)
        }
    }

    // MARK: The agent itself

    /// An agent registered on a client of the stand-in, and that registration as bluetoothd sees it.
    static func withAgent(
        capability: BlueZAgent.Capability = .keyboardOnly, answers: BlueZAgent.Answers,
        _ body: (StandInRig, BlueZAgent, StandInObservations.Agent) async throws -> Void
    ) async throws {
        try await Self.withRig { rig in
            let client = try Self.openClient(rig)
            defer { client.close() }
            let agent = try BlueZAgent(client: client, capability: capability, answers: answers)
            try await agent.register()
            let registered = try #require(await rig.observed.agents.first)
            #expect(registered.capability == capability.rawValue)
            try await body(rig, agent, registered)
            await agent.unregister()
            #expect(await rig.observed.agents.isEmpty)
        }
    }

    /// Runs `body` on a served stand-in with an open SMP device; stopped afterwards.
    static func withRig(_ body: (StandInRig) async throws -> Void) async throws {
        try await StandInRig.with([LiveRig.zephyrDevice()], body)
    }

    /// A client of the stand-in whose calls wait 10 s, times DFU_TEST_TIME_SCALE: under the sanitizers the
    /// answers queue behind the other suites' work on the two pool threads for seconds.
    static func openClient(_ rig: StandInRig) throws -> BlueZClient {
        var client = try BlueZClient.open(busAddress: rig.address)
        client.callTimeout = TestTime.scaled(.seconds(10))
        return client
    }

    static var device: DBusValue {
        get throws { .objectPath(try ObjectPath("/org/bluez/hci0/dev_C0_FF_EE_00_12_FF")) }
    }

    @Test func cancelEndsAPasskeyRequestStillWaitingForAPerson() async throws {
        let started = Mutex(false)
        let answers = BlueZAgent.Answers(
            passkey: { _ in
                started.withLock { $0 = true }
                // A prompt nobody answers: waits until its task is cancelled.
                try? await Task.sleep(for: .seconds(30))
                return Task.isCancelled ? nil : 1
            },
            accepts: { _, _ in true })
        try await Self.withAgent(answers: answers) { rig, agent, registered in
            let device = try Self.device
            let request = Task { await rig.callAgent(registered, "RequestPasskey", [device], timeout: .seconds(20)) }
            while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
            let start = ContinuousClock.now
            _ = try await rig.callAgent(registered, "Cancel", []).get()
            guard case .failure(let error) = await request.value else {
                Issue.record("the passkey request was answered after Cancel")
                return
            }
            #expect(error.name == "org.bluez.Error.Canceled")
            #expect(ContinuousClock.now - start < TestTime.scaled(.seconds(5)), "long before the request's own 20 s timeout")
            #expect(agent.requests == [.passkey])
        }
    }

    @Test func releaseIsAnsweredAndTheAgentIsNotUnregisteredTwice() async throws {
        let answers = BlueZAgent.Answers(passkey: { _ in nil }, accepts: { _, _ in false })
        try await Self.withRig { rig in
            let client = try Self.openClient(rig)
            defer { client.close() }
            let agent = try BlueZAgent(client: client, capability: .noInputNoOutput, answers: answers)
            try await agent.register()
            let registered = try #require(await rig.observed.agents.first)
            _ = try await rig.callAgent(registered, "Release", []).get()
            #expect(agent.wasReleased)
            #expect(!agent.isRegistered)
            await agent.unregister()
            // bluetoothd dropped it already: no UnregisterAgent was sent, so the stand-in still lists it.
            #expect(await rig.observed.agents.count == 1)
        }
    }

    @Test func theAgentRefusesWhatTheOwnerDoesNotAccept() async throws {
        let answers = BlueZAgent.Answers(passkey: { _ in Self.passkey }, accepts: { _, shown in shown == Self.passkey })
        try await Self.withAgent(answers: answers) { rig, agent, registered in
            let device = try Self.device
            #expect(try await rig.callAgent(registered, "RequestPasskey", [device]).get() == [.uint32(Self.passkey)])
            #expect((try? await rig.callAgent(registered, "RequestConfirmation", [device, .uint32(Self.passkey)]).get()) != nil)
            guard case .failure(let error) = await rig.callAgent(registered, "RequestConfirmation", [device, .uint32(1)])
            else {
                Issue.record("a passkey that does not match was confirmed")
                return
            }
            #expect(error.name == "org.bluez.Error.Rejected")
            guard case .failure = await rig.callAgent(registered, "RequestPinCode", [device]) else {
                Issue.record("a PIN code was given")
                return
            }
            #expect(agent.requests == [.passkey, .confirmation(Self.passkey), .confirmation(1), .pinCode])
        }
    }

    /// Any client on the bus can call an exported object: a passkey request from anyone but
    /// bluetoothd is refused, and the owner is never asked.
    @Test func aPasskeyRequestFromAnotherClientOnTheBusIsRefusedWithoutAskingTheOwner() async throws {
        let asked = Mutex(0)
        let answers = BlueZAgent.Answers(
            passkey: { _ in
                asked.withLock { $0 += 1 }
                return Self.passkey
            },
            accepts: { _, _ in true })
        try await Self.withAgent(answers: answers) { rig, agent, registered in
            let intruder = try DBusConnection(address: rig.address)
            defer { intruder.close() }
            let device = try Self.device
            do {
                let answer = try await intruder.call(
                    destination: try BusName(registered.owner), path: registered.path,
                    interface: try InterfaceName("org.bluez.Agent1"), member: try MemberName("RequestPasskey"),
                    arguments: [device], timeout: TestTime.scaled(.seconds(10)))
                Issue.record("another client was given \(answer)")
            } catch let error as DBusError {
                #expect(error.name == "org.freedesktop.DBus.Error.AccessDenied")
            }
            for member in ["Cancel", "Release"] {
                await #expect(throws: DBusError.self) {
                    _ = try await intruder.call(
                        destination: try BusName(registered.owner), path: registered.path,
                        interface: try InterfaceName("org.bluez.Agent1"), member: try MemberName(member),
                        arguments: [], timeout: TestTime.scaled(.seconds(10)))
                }
            }
            #expect(asked.withLock { $0 } == 0)
            #expect(agent.requests.isEmpty)
            #expect(!agent.wasReleased, "a Release from another client is not bluetoothd's")
            // bluetoothd itself is still answered.
            #expect(try await rig.callAgent(registered, "RequestPasskey", [device]).get() == [.uint32(Self.passkey)])
        }
    }
}
