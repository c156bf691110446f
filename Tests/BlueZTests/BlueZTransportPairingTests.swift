import BlueZ
import BlueZTransport
import DBus
import DFUCore
import DFUSimulator
import Glibc
import Synchronization
import TestSupport
import Testing

/// Pairing with an nRF Connect SDK device whose SMP characteristic needs an encrypted link (the NCS 3.x
/// default), through BlueZTransport's own agent, against ``FakeBlueZ`` modelled on bluetoothd 5.66: a
/// refused subscription makes bluetoothd pair through the default agent and retry, AcquireNotify is never
/// answered when the device refuses it, Device1.Pair uses the caller's own agent.
@Suite(.timeLimit(.minutes(TestTime.limitMinutes(3)))) struct BlueZTransportPairingTests {
    static let passkey: UInt32 = 123_456

    /// Runs `body` on a fake bluetoothd serving an encryption-requiring SMP device, then checks that the
    /// transport left no agent registered and never called the AcquireNotify that 5.66 leaves unanswered.
    static func withEncryptedDevice(
        _ options: FakeBlueZ.Options = FakeBlueZ.Options(), configure: (BlueZTransport) async -> Void = { _ in },
        _ body: (FakeBlueZ, BlueZTransport) async throws -> Void
    ) async throws {
        let fake = try await LiveRig.withTransport(LiveRig.zephyrDevice(requiresEncryption: true), options: options) {
            fake, transport in
            await configure(transport)
            try await body(fake, transport)
            return fake
        }
        #expect(fake.registeredAgents.isEmpty, "the agent is unregistered when the transport closes")
        #expect(fake.unansweredAcquireNotify == 0)
    }

    static func pairingFailure(_ result: Result<DFUUpdateReport, DFUError>) -> String? {
        guard case .failure(.transport(_, .pairingFailed(let message))) = result else { return nil }
        return message
    }

    @Test func justWorksHappensWhenBluetoothdRaisesTheSecurityThroughTheTransportsAgent() async throws {
        let image = LiveRig.mcubootImage(size: 10_000)
        try await Self.withEncryptedDevice { fake, transport in
            _ = try await LiveRig.update(try LiveRig.smpPlan(image), over: transport).get()
            try BlueZTransportSMPTests.expectUpdated(fake, to: image)
            #expect(fake.paired)
            // The host had no agent: the transport's became the default, and bluetoothd asked it.
            #expect(fake.agentRequests == ["RequestAuthorization"])
            #expect(fake.pairAttempts == 0)
        }
    }

    @Test func justWorksThroughDevicePairWhenBluetoothdDoesNotPairByItself() async throws {
        let image = LiveRig.mcubootImage(size: 10_000)
        var options = FakeBlueZ.Options()
        options.securityElevation = false
        try await Self.withEncryptedDevice(options) { fake, transport in
            _ = try await LiveRig.update(try LiveRig.smpPlan(image), over: transport).get()
            try BlueZTransportSMPTests.expectUpdated(fake, to: image)
            #expect(fake.paired)
            #expect(fake.pairAttempts == 1, "paired once; the connection after the swap is already paired")
        }
    }

    @Test(arguments: [false, true])
    func aPasskeyGivenOrPromptedIsTyped(prompted: Bool) async throws {
        let image = LiveRig.mcubootImage(size: 10_000)
        var options = FakeBlueZ.Options()
        options.pairingPasskey = Self.passkey
        options.securityElevation = false
        let asked = Mutex<[DFUDeviceAddress]>([])
        let prompt = DFUPasskeyPrompt { address in
            asked.withLock { $0.append(address) }
            return Self.passkey
        }
        try await Self.withEncryptedDevice(options, configure: { transport in
            await transport.setPairing(passkey: prompted ? nil : Self.passkey, prompt: prompted ? prompt : nil)
        }) { fake, transport in
            _ = try await LiveRig.update(try LiveRig.smpPlan(image), over: transport).get()
            try BlueZTransportSMPTests.expectUpdated(fake, to: image)
            #expect(fake.agentRequests == ["RequestPasskey"])
            #expect(asked.withLock { $0 } == (prompted ? [LiveRig.address] : []))
        }
    }

    /// A person typing the passkey while bluetoothd pairs on its own takes longer than bluetoothd's other
    /// answers: the subscription waits for the pairing, not the usual call timeout (1 s here).
    @Test func aPromptAnsweredSlowlyDuringBluetoothdsOwnPairingStillPairs() async throws {
        let image = LiveRig.mcubootImage(size: 5_000)
        var options = FakeBlueZ.Options()
        options.pairingPasskey = Self.passkey
        let fake = try FakeBlueZ(peripheral: LiveRig.zephyrDevice(requiresEncryption: true), options: options)
        defer { fake.stop() }
        try await fake.serve()
        var client = try BlueZClient.open(busAddress: fake.address)
        client.callTimeout = .seconds(1)
        let transport = try await BlueZTransport.open(client: client, ownsClient: true)
        await transport.setPairing(passkey: nil, prompt: DFUPasskeyPrompt { _ in
            try? await Task.sleep(for: .milliseconds(1_500))
            return Self.passkey
        })
        let result = await LiveRig.update(try LiveRig.smpPlan(image), over: transport)
        await transport.close()
        _ = try result.get()
        try BlueZTransportSMPTests.expectUpdated(fake, to: image)
        #expect(fake.agentRequests == ["RequestPasskey"])
        #expect(fake.pairAttempts == 0, "bluetoothd paired on its own, through the transport's agent")
        #expect(fake.registeredAgents.isEmpty)
    }

    @Test func aWrongPasskeyIsAClearPairingErrorNamingThePasskey() async throws {
        var options = FakeBlueZ.Options()
        options.pairingPasskey = Self.passkey
        options.securityElevation = false
        try await Self.withEncryptedDevice(options, configure: { await $0.setPairing(passkey: 111_111, prompt: nil) }) {
            fake, transport in
            let start = ContinuousClock.now
            let result = await LiveRig.update(try LiveRig.smpPlan(LiveRig.mcubootImage()), over: transport)
            let message = try #require(Self.pairingFailure(result), "\(result)")
            #expect(message.contains("pairing with \(LiveRig.address) failed"), "\(message)")
            #expect(message.contains("check the passkey given with --passkey"), "\(message)")
            // Sooner than the 10 s an unanswered AcquireNotify would take (DFU_TEST_TIME_SCALE: make test-sanitize).
            #expect(ContinuousClock.now - start < TestTime.scaled(.seconds(8)))
            #expect(!fake.paired)
            #expect(fake.pairAttempts == 1, "a pairing failure is not retried")
        }
    }

    @Test func aDeviceAskingForAPasskeyWithoutOneSaysToGiveIt() async throws {
        var options = FakeBlueZ.Options()
        options.pairingPasskey = Self.passkey
        options.securityElevation = false
        let prompt = DFUPasskeyPrompt { _ in nil }  // the person pressed Enter without typing one
        try await Self.withEncryptedDevice(options, configure: { await $0.setPairing(passkey: nil, prompt: prompt) }) {
            _, transport in
            let result = await LiveRig.update(try LiveRig.smpPlan(LiveRig.mcubootImage()), over: transport)
            let message = try #require(Self.pairingFailure(result), "\(result)")
            #expect(message.contains("give the one it shows with --passkey"), "\(message)")
        }
    }

    @Test func aDeviceThatWantsAPasskeyCannotPairJustWorks() async throws {
        var options = FakeBlueZ.Options()
        options.pairingPasskey = Self.passkey
        try await Self.withEncryptedDevice(options) { fake, transport in
            // No passkey and no prompt: the agent is NoInputNoOutput, so no authenticated pairing is possible.
            let result = await LiveRig.update(try LiveRig.smpPlan(LiveRig.mcubootImage()), over: transport)
            let message = try #require(Self.pairingFailure(result), "\(result)")
            #expect(message.contains("pairing with \(LiveRig.address) failed"), "\(message)")
            #expect(message.contains("if the device shows a passkey, give it with --passkey"), "\(message)")
            #expect(!fake.paired)
        }
    }

    @Test func aDeviceRefusingToPairIsAClearErrorAndNothingIsSent() async throws {
        var options = FakeBlueZ.Options()
        options.pairingFails = true
        try await Self.withEncryptedDevice(options) { fake, transport in
            let result = await LiveRig.update(try LiveRig.smpPlan(LiveRig.mcubootImage()), over: transport)
            let message = try #require(Self.pairingFailure(result), "\(result)")
            #expect(message.contains("Authentication Failed"), "\(message)")
            let target = try #require(fake.firmware as? SimulatedZephyrTarget)
            #expect(target.slots[0].secondaryBlank)
            #expect(target.refusedWrites == 0, "no request was written to a link the device refuses")
        }
    }

    @Test func aDeviceThatNeedsNoPairingIsNotPaired() async throws {
        try await LiveRig.withTransport(LiveRig.zephyrDevice()) { fake, transport in
            _ = try await LiveRig.update(try LiveRig.smpPlan(LiveRig.mcubootImage(size: 5_000)), over: transport).get()
            #expect(!fake.paired)
            #expect(fake.pairAttempts == 0)
            #expect(fake.agentRequests.isEmpty)
            await transport.close()
            #expect(fake.registeredAgents.isEmpty)
        }
    }

    // MARK: The agent itself

    /// An agent registered on a client of the fake bluetoothd, and that registration as bluetoothd sees it.
    static func withAgent(
        capability: BlueZAgent.Capability = .keyboardOnly, answers: BlueZAgent.Answers,
        _ body: (FakeBlueZ, BlueZAgent, FakeBlueZ.Agent) async throws -> Void
    ) async throws {
        let fake = try FakeBlueZ(peripheral: LiveRig.zephyrDevice())
        defer { fake.stop() }
        try await fake.serve()
        let client = try Self.openClient(fake)
        defer { client.close() }
        let agent = try BlueZAgent(client: client, capability: capability, answers: answers)
        try await agent.register()
        let registered = try #require(fake.registeredAgents.first)
        #expect(registered.capability == capability.rawValue)
        try await body(fake, agent, registered)
        await agent.unregister()
        #expect(fake.registeredAgents.isEmpty)
    }

    /// A client of the fake whose calls wait 10 s, times DFU_TEST_TIME_SCALE: under the sanitizers the
    /// fake's answers queue behind the other suites' work on the two pool threads for seconds.
    static func openClient(_ fake: FakeBlueZ) throws -> BlueZClient {
        var client = try BlueZClient.open(busAddress: fake.address)
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
        try await Self.withAgent(answers: answers) { fake, agent, registered in
            let device = try Self.device
            let request = Task { await fake.callAgent(registered, "RequestPasskey", [device], timeout: .seconds(20)) }
            while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
            let start = ContinuousClock.now
            _ = try await fake.callAgent(registered, "Cancel", []).get()
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
        let fake = try FakeBlueZ(peripheral: LiveRig.zephyrDevice())
        defer { fake.stop() }
        try await fake.serve()
        let client = try Self.openClient(fake)
        defer { client.close() }
        let agent = try BlueZAgent(client: client, capability: .noInputNoOutput, answers: answers)
        try await agent.register()
        let registered = try #require(fake.registeredAgents.first)
        _ = try await fake.callAgent(registered, "Release", []).get()
        #expect(agent.wasReleased)
        #expect(!agent.isRegistered)
        await agent.unregister()
        // bluetoothd dropped it already: no UnregisterAgent was sent, so the fake still lists it.
        #expect(fake.registeredAgents.count == 1)
    }

    @Test func theAgentRefusesWhatTheOwnerDoesNotAccept() async throws {
        let answers = BlueZAgent.Answers(passkey: { _ in Self.passkey }, accepts: { _, shown in shown == Self.passkey })
        try await Self.withAgent(answers: answers) { fake, agent, registered in
            let device = try Self.device
            #expect(try await fake.callAgent(registered, "RequestPasskey", [device]).get() == [.uint32(Self.passkey)])
            #expect((try? await fake.callAgent(registered, "RequestConfirmation", [device, .uint32(Self.passkey)]).get()) != nil)
            guard case .failure(let error) = await fake.callAgent(registered, "RequestConfirmation", [device, .uint32(1)])
            else {
                Issue.record("a passkey that does not match was confirmed")
                return
            }
            #expect(error.name == "org.bluez.Error.Rejected")
            guard case .failure = await fake.callAgent(registered, "RequestPinCode", [device]) else {
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
        try await Self.withAgent(answers: answers) { fake, agent, registered in
            let intruder = try DBusConnection(address: fake.address)
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
            #expect(try await fake.callAgent(registered, "RequestPasskey", [device]).get() == [.uint32(Self.passkey)])
        }
    }
}
