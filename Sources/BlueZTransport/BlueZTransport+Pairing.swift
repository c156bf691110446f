import BlueZ

import DFUCore

extension BlueZTransport {
    /// How long `Device1.Pair` may take: the kernel's SMP procedure allows 30 s between steps
    /// (`SMP_TIMEOUT`), and a person typing a passkey is one of them.
    static let pairingTimeout: Duration = .seconds(60)

    /// Registers the transport's pairing agent, once; failure is not an error (bluetoothd then uses the
    /// host's default agent, or pairs Just Works without one where the kernel does not ask).
    ///
    /// Its capability is KeyboardOnly when a passkey was given or can be asked for, so a device that
    /// shows a passkey gets an authenticated pairing, and NoInputNoOutput (Just Works) otherwise.
    func ensureAgent() async {
        guard !agentTried, !isClosed else { return }
        agentTried = true
        let capability: BlueZAgent.Capability = pairingPasskey != nil || passkeyPrompt != nil ? .keyboardOnly : .noInputNoOutput
        let answers = BlueZAgent.Answers(
            passkey: { [weak self] device in await self?.passkey(for: device) },
            accepts: { [weak self] device, shown in await self?.acceptsPairing(of: device, showing: shown) ?? false })
        do {
            let agent = try BlueZAgent(client: client, capability: capability, answers: answers)
            try await agent.register()
            self.agent = agent
        } catch {
            // AlreadyExists (this connection has an agent of its own), or a bus that cannot export objects.
        }
    }

    /// The agent's answer to RequestPasskey: only for the connected device, the given passkey or the prompt's.
    func passkey(for device: BlueZPath) async -> UInt32? {
        guard let link, link.device == device else { return nil }
        pairingAsked = true
        if let pairingPasskey { return pairingPasskey }
        guard let passkeyPrompt, let address = devices[device].flatMap({ DFUDeviceAddress($0.address) }) else {
            passkeyWanted = true
            return nil
        }
        let answer = await passkeyPrompt.ask(address)
        if answer == nil { passkeyWanted = true }
        return answer
    }

    /// The agent's answer to RequestAuthorization (a Just Works pairing: `shown` nil) and
    /// RequestConfirmation (`shown` must be the passkey given): only for the connected device.
    func acceptsPairing(of device: BlueZPath, showing shown: UInt32?) -> Bool {
        guard let link, link.device == device else { return false }
        pairingAsked = true
        guard let shown else { return true }
        return shown == pairingPasskey
    }

    /// `Device1.Pair` with the transport's agent registered; throws ``DFUTransportError/pairingFailed(_:)``
    /// naming the device, bluetoothd's reason and what to try. A device already paired (or pairing) counts.
    func pair(_ context: LinkContext, address: DFUDeviceAddress) async throws(DFUTransportError) {
        await ensureAgent()
        passkeyWanted = false
        do {
            try await client.pair(device: context.device, timeout: Self.pairingTimeout)
        } catch .inProgress {
            // "Already Paired", or a pairing bluetoothd started itself is running.
        } catch {
            if context.events.isDown { throw .disconnected }
            if case .timedOut = error { try? await client.cancelPairing(device: context.device) }
            throw .pairingFailed(pairingFailure(address, error))
        }
    }

    /// One sentence for a failed pairing: the device, bluetoothd's reason, and what to try.
    func pairingFailure(_ address: DFUDeviceAddress, _ error: BlueZError) -> String {
        var text = "pairing with \(address) failed: "
        switch error {
        case .pairingFailed(let detail), .notAuthorized(let detail), .failed(let detail, _):
            text += detail.isEmpty ? error.description : detail
        case .timedOut:
            text += "it did not finish within \(Self.pairingTimeout.components.seconds) s"
        default:
            text += error.description
        }
        if passkeyWanted {
            text += "; the device asks for a passkey: give the one it shows with --passkey"
        } else if pairingPasskey != nil {
            text += "; check the passkey given with --passkey"
        } else if agent == nil {
            text += "; no pairing agent could be registered on this host"
        } else if agent?.capability == .noInputNoOutput {
            text += "; if the device shows a passkey, give it with --passkey"
        }
        return text
    }

    /// The failure for a link that went while this run paired the device (its Pair call, an agent request of
    /// its pairing, or the first subscription on the new keys): a pairing the device did not accept, named as
    /// such. A Zephyr server that needs authenticated keys and cannot get them sees the link end with reason
    /// 0x05, authentication failure; bluetoothd 5.66 reports no reason for a disconnection (Device1 has no
    /// `Disconnected` signal there), so the moment is what tells. A bond this run made (`removingBond`: the
    /// device was not paired when the subscription began) is removed.
    func authenticationDropped(_ context: LinkContext, address: DFUDeviceAddress, removingBond: Bool) async
        -> DFUTransportError
    {
        if removingBond { await removeBondMadeHere(context) }
        var text = "pairing with \(address) failed: the device ended the link during pairing (an authentication "
            + "failure, not a range problem)"
        if pairingPasskey != nil {
            text += "; check the passkey given with --passkey"
        } else {
            text += "; if it needs an authenticated pairing, give the passkey it shows with --passkey"
        }
        return .pairingFailed(text)
    }

    /// Removes the device this run paired (Adapter1.RemoveDevice: its bond and GATT cache go with it), when
    /// that bond does not give the device the security it needs. Only for the device of this link, and only
    /// when it was not paired before this run: a bond that existed before is never touched.
    func removeBondMadeHere(_ context: LinkContext) async {
        guard let device = devices[context.device] else { return }
        try? await client.removeDevice(device.path, adapter: adapter.path)
        devices[device.path] = nil
        heard.remove(device.path)
    }
}
