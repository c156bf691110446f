import DBus
import DFUSimulator

/// Pairing with a simulated SMP device, as bluetoothd 5.66 drives it: through Device1.Pair, or when the device
/// refuses the SMP characteristic's CCCD write for want of security and bluetoothd raises the link's security
/// itself. The pairing method follows from the agent's and the device's IO capabilities (``PairingMethod``),
/// and bluetoothd asks the agent for what the method needs.
extension BlueZStandIn {
    /// How long bluetoothd waits for an agent's answer (`src/agent.c`, `REQUEST_TIMEOUT`, 60 s).
    static let agentTimeout: Duration = .seconds(60)

    /// The agent bluetoothd asks, and the IO capability it pairs with: for Pair the caller's own agent, else
    /// the default agent (`src/device.c` `pair_device`, `agent_get(sender)`); for a security raise the default
    /// agent (`new_auth`, `agent_get(NULL)`; the adapter's IO capability is the default agent's, `src/agent.c`
    /// `set_io_cap`). No agent: NoInputNoOutput.
    func pairingAgent(for caller: String?) -> (owner: String, agent: RegisteredAgent)? {
        if let caller, let agent = agents[caller] { return (caller, agent) }
        guard let owner = defaultAgents.first, let agent = agents[owner] else { return nil }
        return (owner, agent)
    }

    /// Runs the pairing's user step with the device at `path` (radio `index`) and returns its method; throws
    /// `AuthenticationFailed` when no agent can be asked, the agent refuses or answers a wrong passkey, as
    /// bluetoothd does for a failed SMP pairing (`src/device.c` `new_authentication_return`).
    ///
    /// Every method asks an agent something: Just Works under LE Secure Connections comes as a confirmation
    /// request with `confirm_hint` (seen from the kernel on both sides in the VM, Tests/BlueZVM/README.md), and
    /// `device_confirm_passkey` first finds an agent (`new_auth`: none → the request is refused), then accepts by
    /// itself while a Pair (`bonding`) is pending, or asks the agent's RequestAuthorization otherwise.
    func authenticate(_ path: ObjectPath, radio index: Int, caller: String?, bonding: Bool) async throws
        -> PairingMethod
    {
        let pairing = radios[index].spec.pairing
        let failed = BlueZNames.error("AuthenticationFailed", "Authentication Failed")
        // A device that refuses every pairing request ("pairing not supported") fails it before any agent is asked.
        guard !configuration.faults.pairingFails, let (owner, agent) = pairingAgent(for: caller) else { throw failed }
        let method = PairingMethod(initiator: agent.capability, responder: pairing.capability)
        let destination = try BusName(owner)
        let interface = try InterfaceName("org.bluez.Agent1")
        switch method {
        case .passkeyEnteredOnHost:
            // `agent_request_passkey`: the user types the passkey the device shows.
            let reply: [DBusValue]
            observed.agentRequests.append("RequestPasskey")
            do {
                reply = try await connection.call(
                    destination: destination, path: agent.path, interface: interface, member: member("RequestPasskey"),
                    arguments: [.objectPath(path)], timeout: Self.agentTimeout)
            } catch {
                throw failed
            }
            guard reply.count == 1, reply[0].integerValue == Int64(pairing.passkey) else { throw failed }
        case .passkeyShownOnHost:
            // `agent_display_passkey`: sent without waiting for a reply; the device's user types it.
            let shown = UInt32.random(in: 0...999_999)
            var message = DBusMessage(
                type: .methodCall, destination: destination, path: agent.path, interface: interface,
                member: try member("DisplayPasskey"), arguments: [.objectPath(path), .uint32(shown), .uint16(0)])
            message.expectsReply = false
            observed.agentRequests.append("DisplayPasskey")
            try? connection.send(message)
        case .numericComparison:
            // `agent_request_confirmation`: both sides show the value; the user confirms they match.
            observed.agentRequests.append("RequestConfirmation")
            do {
                _ = try await connection.call(
                    destination: destination, path: agent.path, interface: interface,
                    member: member("RequestConfirmation"), arguments: [.objectPath(path), .uint32(pairing.passkey)],
                    timeout: Self.agentTimeout)
            } catch {
                throw failed
            }
        case .justWorks:
            guard !bonding else { break }
            // `agent_request_authorization`: the user accepts a pairing nobody asked for.
            observed.agentRequests.append("RequestAuthorization")
            do {
                _ = try await connection.call(
                    destination: destination, path: agent.path, interface: interface,
                    member: member("RequestAuthorization"), arguments: [.objectPath(path)], timeout: Self.agentTimeout)
            } catch {
                throw failed
            }
        }
        return method
    }

    /// Paired and (from 5.65) Bonded, true: what changes on a device object when a bond is made.
    func bondProperties() throws(DBusError) -> [MemberName: DBusValue] {
        var changed = [try member("Paired"): DBusValue.boolean(true)]
        if configuration.host.version.exportsBonded { changed[try member("Bonded")] = .boolean(true) }
        return changed
    }

    /// Records a bond made by `method` with the device at `path`: Paired and Bonded, and whether the device's
    /// SMP characteristic now admits the link.
    func bond(_ path: ObjectPath, radio index: Int, method: PairingMethod) throws {
        devices[path]?.paired = true
        devices[path]?.authenticated = method.isAuthenticated
        devices[path]?.expiry?.cancel()
        devices[path]?.expiry = nil
        radios[index].isBonded = radios[index].spec.pairing.admits(authenticated: method.isAuthenticated)
        try connection.setProperties(try bondProperties(), interface: names.device, at: path)
    }

    /// The CCCD write of StartNotify or AcquireNotify on a connected device: when the device refuses it for
    /// want of security (Zephyr `bt_gatt_check_perm`: ATT 0x05 Insufficient Authentication), bluetoothd raises
    /// the link's security and retries the write (BlueZ 5.66 `src/shared/att.c` `handle_error_rsp`,
    /// `change_security`: to medium, then high for a 0x05 again); the kernel pairs with the adapter's IO
    /// capability, asking the default agent. When that cannot give the device what it needs, the error reaches
    /// the caller as `create_gatt_dbus_error` names it: NotPermitted "Not paired". (The two steps, medium then
    /// high, are taken as one pairing with the method the capabilities give; a pairing that fails leaves the link
    /// up, which the kernel's handling was not read to confirm.)
    func admitSubscription(_ device: ObjectPath, characteristic uuid: String) async throws {
        guard let radio = devices[device]?.radio,
            radios[radio].firmware.subscriptionError(for: uuid, isBonded: radios[radio].isBonded) != nil
        else { return }
        let generation = devices[device]?.generation
        if let method = try? await authenticate(device, radio: radio, caller: nil, bonding: false),
            devices[device]?.generation == generation, devices[device]?.connected == true
        {
            if radios[radio].spec.pairing.dropsWeakPairing, !radios[radio].spec.pairing.admits(authenticated: method.isAuthenticated) {
                // A device that ends the link rather than take keys too weak for it (``DevicePairing``).
                tearDown(device, reboot: nil, announce: true)
            } else {
                try? bond(device, radio: radio, method: method)
            }
        }
        guard devices[device]?.generation == generation, let current = devices[device]?.radio else {
            throw BlueZNames.error("Failed", "Not connected")
        }
        if let error = radios[current].firmware.subscriptionError(for: uuid, isBonded: radios[current].isBonded) {
            throw Self.error(forATT: error.code)
        }
    }
}
