import DBus
import DFUCore
import DFUSimSupport
import DFUSimulator
import Dispatch
import Glibc
import Synchronization
import TestSupport

/// A small org.bluez served on a private bus from one simulated nRF5 device, for driving
/// ``BlueZTransport`` in tests until `dfu-sim` exists. It follows the documented org.bluez API
/// (Adapter1, Device1, GattService1, GattCharacteristic1 with AcquireWrite/AcquireNotify), not
/// every detail of bluetoothd.
final class FakeBlueZ: Sendable {
    /// Behaviour switches.
    struct Options: Sendable {
        /// Adapters by name and power state.
        var adapters: [(name: String, powered: Bool)] = [("hci0", true)]
        /// AcquireWrite answers NotSupported (forces the WriteValue fallback).
        var refuseAcquireWrite = false
        /// AcquireNotify answers NotSupported (forces StartNotify).
        var refuseAcquireNotify = false
        /// Drop the link once after this many packets (resume test).
        var dropLinkAfterPackets: Int?
        /// After the drop, remove the device and stop advertising (device vanishes).
        var vanishOnDrop = false
        /// Instead of dropping the link, bluetoothd leaves the bus (crash or stop).
        var quitOnDrop = false
        /// Device1.Pair answers AuthenticationFailed.
        var pairingFails = false
        /// The MTU reported.
        var mtu = 247
        /// Whether characteristics have the `MTU` property (bluetoothd 5.62 and later).
        var exportsMTU = true
        /// Extra bus policy lines (e.g. a deny rule for org.bluez).
        var extraPolicy: [String] = []
        /// The device pairs only by passkey entry with this passkey (it shows it and wants MITM
        /// protection); nil: Just Works.
        var pairingPasskey: UInt32?
        /// A subscription the device refuses for want of encryption first makes bluetoothd pair through
        /// the default agent and retry (`src/shared/att.c` `change_security`), as bluetoothd does.
        var securityElevation = true
    }

    /// A registered pairing agent: its connection, object and capability.
    struct Agent: Sendable, Hashable {
        var owner: String
        var path: ObjectPath
        var capability: String
    }

    struct State {
        var peripheral: SimulatedPeripheral
        var connected = false
        var advertising = true
        var discovering = false
        var subscribed: Set<String> = []
        var exportedDevices: Set<String> = []
        var gattPaths: [ObjectPath] = []
        var characteristicPaths: [String: ObjectPath] = [:]
        var notifySockets: [String: Int32] = [:]
        var packetSocket: Int32?
        var packetSource: SourceBox?
        var packets = 0
        var dropsLeft = 1
        var connections = 0
        var connectedAddresses: [DFUDeviceAddress] = []
        var advertisedNames: [String] = []
        var pairAttempts = 0
        var notificationsSent = 0
        /// Whether the device and the host share a key (Device1.Pair, or bluetoothd's own pairing).
        var paired = false
        /// Agents by owner, and the default ones in order (the first registered is the default).
        var agents: [String: Agent] = [:]
        var defaultAgents: [String] = []
        /// What each agent was asked: "owner member".
        var agentRequests: [String] = []
        /// AcquireNotify calls on a characteristic the device refuses for want of encryption.
        var unansweredAcquireNotify = 0
        /// bluetoothd 5.66 keeps a failed AcquireNotify's session: the characteristic stays "Notify acquired".
        var notifyStuck: Set<String> = []
        /// GATT databases by address, kept like bluetoothd's cache until RemoveDevice.
        var gattCache: [String: [SimulatedService]] = [:]
    }

    /// Dispatch sources are thread-safe to cancel.
    final class SourceBox: @unchecked Sendable {
        let source: any DispatchSourceRead
        init(_ source: any DispatchSourceRead) { self.source = source }
    }

    let daemon: DBusDaemon
    let server: DBusConnection
    let options: Options
    let state: Mutex<State>
    let start = ContinuousClock.now
    static let zeroFlash: FlashTimings = {
        var timings = FlashTimings()
        timings.pageErase = .zero
        timings.wordWrite = .zero
        timings.firstObjectPreparation = .zero
        timings.hashPerKilobyte = .zero
        return timings
    }()

    /// The bus address clients use.
    var address: String { daemon.address }

    /// Starts a bus; ``serve()`` then owns org.bluez on it.
    init(peripheral: SimulatedPeripheral, options: Options = Options()) throws {
        daemon = try DBusDaemon(ownableNames: [try BusName("org.bluez")], extraPolicy: options.extraPolicy)
        server = try DBusConnection(address: daemon.address)
        self.options = options
        state = Mutex(State(peripheral: peripheral))
    }

    /// Owns org.bluez and exports the adapters.
    func serve() async throws {
        server.addObjectManager(at: .root)
        try exportAgentManager()
        for adapter in options.adapters { try exportAdapter(adapter.name, powered: adapter.powered) }
        try await server.requestName(try BusName("org.bluez"))
    }

    /// Stops the bus.
    func stop() {
        dropLink(reboot: nil)
        server.close()
        daemon.stop()
    }

    /// What the simulated device runs now.
    var firmware: any SimulatedFirmware { state.withLock { $0.peripheral.firmware } }
    /// Notifications sent to the client.
    var notificationsSent: Int { state.withLock { $0.notificationsSent } }

    /// Calls `member` of the agent `owner` registered, as bluetoothd does; its reply or error.
    func callAgent(_ agent: Agent, _ member: String, _ arguments: [DBusValue], timeout: Duration = TestTime.scaled(.seconds(5)))
        async -> Result<[DBusValue], DBusError>
    {
        do {
            return .success(try await server.call(
                destination: try BusName(agent.owner), path: agent.path, interface: try InterfaceName("org.bluez.Agent1"),
                member: try MemberName(member), arguments: arguments, timeout: timeout))
        } catch {
            return .failure(error)
        }
    }

    /// The flash of the simulated device now.
    var storage: SimulatedStorage { state.withLock { $0.peripheral.storage } }
    /// The address the device advertises now.
    var currentAddress: DFUDeviceAddress { state.withLock { $0.peripheral.address } }
    /// The addresses connected to, in order, without repeats in a row.
    var connectedAddresses: [DFUDeviceAddress] { state.withLock { $0.connectedAddresses } }
    /// Every name the device advertised when a discovery saw it.
    var advertisedNames: [String] { state.withLock { $0.advertisedNames } }
    /// How many times a client asked to pair.
    var pairAttempts: Int { state.withLock { $0.pairAttempts } }
    /// How many times a client connected.
    var connections: Int { state.withLock { $0.connections } }
    /// Whether the device is paired with the host.
    var paired: Bool { state.withLock { $0.paired } }
    /// Agents registered now.
    var registeredAgents: [Agent] { state.withLock { Array($0.agents.values) } }
    /// What the agents were asked, in order ("RequestPasskey", …).
    var agentRequests: [String] { state.withLock { $0.agentRequests } }
    /// AcquireNotify calls that bluetoothd 5.66 would never answer.
    var unansweredAcquireNotify: Int { state.withLock { $0.unansweredAcquireNotify } }

    // MARK: Agents

    /// AgentManager1 as bluetoothd 5.66 `src/agent.c` has it: one agent per connection; the first
    /// registered becomes the default, later ones queue behind it.
    private func exportAgentManager() throws {
        let methods = [
            DBusMethod(try MemberName("RegisterAgent"), inputs: [DBusArgument("agent", "o"), DBusArgument("capability", "s")]) {
                [self] call in
                let owner = call.sender?.rawValue ?? ""
                guard let path = call.arguments.first?.objectPathValue, let capability = call.arguments.last?.stringValue else { return [] }
                try state.withLock { state in
                    guard state.agents[owner] == nil else {
                        throw DBusError(name: "org.bluez.Error.AlreadyExists", message: "Already Exists")
                    }
                    state.agents[owner] = Agent(owner: owner, path: path, capability: capability)
                    state.defaultAgents.append(owner)
                }
                return []
            },
            DBusMethod(try MemberName("UnregisterAgent"), inputs: [DBusArgument("agent", "o")]) { [self] call in
                let owner = call.sender?.rawValue ?? ""
                try state.withLock { state in
                    guard let agent = state.agents[owner], agent.path == call.arguments.first?.objectPathValue else {
                        throw DBusError(name: "org.bluez.Error.DoesNotExist", message: "Does Not Exist")
                    }
                    state.agents[owner] = nil
                    state.defaultAgents.removeAll { $0 == owner }
                }
                return []
            },
            DBusMethod(try MemberName("RequestDefaultAgent"), inputs: [DBusArgument("agent", "o")]) { [self] call in
                let owner = call.sender?.rawValue ?? ""
                try state.withLock { state in
                    guard state.agents[owner] != nil else {
                        throw DBusError(name: "org.bluez.Error.DoesNotExist", message: "Does Not Exist")
                    }
                    state.defaultAgents.removeAll { $0 == owner }
                    state.defaultAgents.insert(owner, at: 0)
                }
                return []
            },
        ]
        try server.export([DBusInterface(try InterfaceName("org.bluez.AgentManager1"), methods: methods)], at: try ObjectPath("/org/bluez"))
    }

    /// Asks `agent` `member` about `device`; the error it answers, if any.
    private func ask(_ agent: Agent, _ member: String, device: ObjectPath, extra: [DBusValue] = []) async -> DBusError? {
        state.withLock { $0.agentRequests.append(member) }
        do {
            _ = try await server.call(
                destination: try BusName(agent.owner), path: agent.path, interface: try InterfaceName("org.bluez.Agent1"),
                member: try MemberName(member), arguments: [.objectPath(device)] + extra, timeout: .seconds(30))
            return nil
        } catch {
            return error
        }
    }

    /// One pairing, as the kernel and bluetoothd 5.66 run it with `agent` (the caller's own for
    /// Device1.Pair, else the default one): passkey entry when the device wants it (the agent must be
    /// able to type: RequestPasskey), otherwise Just Works, which bluetoothd confirms with the agent
    /// (auto-accepted for a Device1.Pair, RequestAuthorization otherwise) and refuses without any agent
    /// (`src/device.c` `device_confirm_passkey`, `new_auth`). Returns the D-Bus error a Pair would answer.
    private func runPairing(agent: Agent?, requested: Bool, device: ObjectPath) async -> DBusError? {
        let failed = DBusError(name: "org.bluez.Error.AuthenticationFailed", message: "Authentication Failed")
        if options.pairingFails { return failed }
        guard let agent else { return failed }
        if let passkey = options.pairingPasskey {
            guard agent.capability != "NoInputNoOutput", agent.capability != "DisplayOnly" else { return failed }
            state.withLock { $0.agentRequests.append("RequestPasskey") }
            let answer: [DBusValue]
            do {
                answer = try await server.call(
                    destination: try BusName(agent.owner), path: agent.path, interface: try InterfaceName("org.bluez.Agent1"),
                    member: try MemberName("RequestPasskey"), arguments: [.objectPath(device)], timeout: .seconds(30))
            } catch {
                return failed
            }
            guard answer.first?.integerValue == Int64(passkey) else { return failed }
        } else if !requested, await ask(agent, "RequestAuthorization", device: device) != nil {
            return DBusError(name: "org.bluez.Error.AuthenticationRejected", message: "Authentication Rejected")
        }
        state.withLock { $0.paired = true }
        try? server.setProperties(
            [try MemberName("Paired"): .boolean(true), try MemberName("Bonded"): .boolean(true)],
            interface: try InterfaceName("org.bluez.Device1"), at: device)
        return nil
    }

    /// Whether the device refuses `uuid`'s subscription for want of encryption now.
    private func refusesSubscription(_ uuid: String) -> Bool {
        state.withLock { state in
            state.peripheral.firmware.subscriptionError(for: uuid, isBonded: state.peripheral.profile.isBonded || state.paired) != nil
        }
    }

    /// bluetoothd's answer to a subscription the device refuses: it raises the security itself (a
    /// pairing through the default agent) and retries; NotPermitted "Not paired" when that fails.
    private func elevateSecurity(for uuid: String) async throws {
        let (agent, device) = state.withLock { state in
            (state.defaultAgents.first.flatMap { state.agents[$0] },
             try? Self.devicePath(adapter: ObjectPath("/org/bluez/hci0"), address: state.peripheral.address))
        }
        if options.securityElevation, let device, let agent, await runPairing(agent: agent, requested: false, device: device) == nil,
           !refusesSubscription(uuid)
        {
            return
        }
        throw DBusError(name: "org.bluez.Error.NotPermitted", message: "Not paired")
    }

    // MARK: Adapter

    private func exportAdapter(_ name: String, powered: Bool) throws {
        let path = try ObjectPath("/org/bluez/\(name)")
        let methods = [
            DBusMethod(try MemberName("SetDiscoveryFilter"), inputs: [DBusArgument("filter", "a{sv}")]) { _ in [] },
            DBusMethod(try MemberName("StartDiscovery")) { [self] _ in
                guard powered else { throw DBusError(name: "org.bluez.Error.NotReady", message: "Resource Not Ready") }
                state.withLock { $0.discovering = true }
                try advertise(adapter: path)
                return []
            },
            DBusMethod(try MemberName("StopDiscovery")) { [self] _ in
                // As bluetoothd does: RSSI is only known while discovering.
                let known = state.withLock { state in
                    state.discovering = false
                    return state.exportedDevices
                }
                for address in known {
                    guard let device = DFUDeviceAddress(address) else { continue }
                    try? server.removeProperties(
                        [try MemberName("RSSI")], interface: try InterfaceName("org.bluez.Device1"),
                        at: try Self.devicePath(adapter: path, address: device))
                }
                return []
            },
            DBusMethod(try MemberName("RemoveDevice"), inputs: [DBusArgument("device", "o")]) { [self] call in
                guard let device = call.arguments.first?.objectPathValue else { return [] }
                try removeDevice(device)
                return []
            },
        ]
        let properties = [
            DBusProperty(try MemberName("Address"), value: .string("00:AA:01:00:00:0\(options.adapters.count)")),
            DBusProperty(try MemberName("Powered"), value: .boolean(powered)),
            DBusProperty(try MemberName("Discovering"), value: .boolean(false)),
        ]
        try server.export([DBusInterface(try InterfaceName("org.bluez.Adapter1"), methods: methods, properties: properties)], at: path)
    }

    // MARK: Device

    static func devicePath(adapter: ObjectPath, address: DFUDeviceAddress) throws -> ObjectPath {
        try adapter.appending("dev_" + address.description.replacing(":", with: "_"))
    }

    /// Exports the device at its current address when it advertises and is not exported yet.
    private func advertise(adapter: ObjectPath) throws {
        let (address, firmware, isNew) = state.withLock { state in
            let key = state.peripheral.address.description
            let isNew = state.advertising && !state.exportedDevices.contains(key)
            if isNew { state.exportedDevices.insert(key) }
            if state.advertising { state.advertisedNames.append(state.peripheral.firmware.advertisedName) }
            return (state.peripheral.address, state.peripheral.firmware, isNew)
        }
        let path = try Self.devicePath(adapter: adapter, address: address)
        guard isNew else {
            if state.withLock({ $0.advertising }) {
                try server.setProperties([
                    try MemberName("RSSI"): .int16(-48), try MemberName("Name"): .string(firmware.advertisedName),
                    try MemberName("UUIDs"): .stringArray(firmware.advertisedServiceUUIDs.map { $0.lowercased() }),
                ], interface: try InterfaceName("org.bluez.Device1"), at: path)
            }
            return
        }
        let device = try InterfaceName("org.bluez.Device1")
        let methods = [
            DBusMethod(try MemberName("Connect")) { [self] _ in
                try connect(path, adapter: adapter)
                return []
            },
            DBusMethod(try MemberName("Disconnect")) { [self] _ in
                dropLink(reboot: nil)
                return []
            },
            DBusMethod(try MemberName("Pair"), runsConcurrently: true) { [self] call in
                let owner = call.sender?.rawValue ?? ""
                let (agent, alreadyPaired) = state.withLock { state in
                    state.pairAttempts += 1
                    return (state.agents[owner] ?? state.defaultAgents.first.flatMap { state.agents[$0] }, state.paired)
                }
                if alreadyPaired { throw DBusError(name: "org.bluez.Error.AlreadyExists", message: "Already Paired") }
                if let error = await runPairing(agent: agent, requested: true, device: path) { throw error }
                return []
            },
        ]
        let properties = [
            DBusProperty(try MemberName("Address"), value: .string(address.description)),
            DBusProperty(try MemberName("AddressType"), value: .string("random")),
            DBusProperty(try MemberName("Name"), value: .string(firmware.advertisedName)),
            DBusProperty(try MemberName("Alias"), value: .string(firmware.advertisedName)),
            DBusProperty(try MemberName("RSSI"), value: .int16(-50)),
            DBusProperty(try MemberName("UUIDs"), value: .stringArray(firmware.advertisedServiceUUIDs.map { $0.lowercased() })),
            DBusProperty(try MemberName("Adapter"), value: .objectPath(adapter)),
            DBusProperty(try MemberName("Connected"), value: .boolean(false)),
            DBusProperty(try MemberName("ServicesResolved"), value: .boolean(false)),
            DBusProperty(try MemberName("Paired"), value: .boolean(false)),
        ]
        try server.export([DBusInterface(device, methods: methods, properties: properties)], at: path)
    }

    private func removeDevice(_ path: ObjectPath) throws {
        let address = state.withLock { $0.peripheral.address }
        if path.rawValue.hasSuffix("dev_" + address.description.replacing(":", with: "_")) { dropLink(reboot: nil) }
        let removed = String(String(path.rawValue.split(separator: "/").last ?? "").dropFirst(4)).replacing("_", with: ":")
        state.withLock { state in
            state.exportedDevices.remove(removed)
            state.gattCache[removed] = nil
        }
        try server.unexport(at: path)
    }

    private func connect(_ path: ObjectPath, adapter: ObjectPath) throws {
        let (services, address) = state.withLock { state in
            state.connected = true
            state.connections += 1
            let address = state.peripheral.address
            if state.connectedAddresses.last != address { state.connectedAddresses.append(address) }
            let services = state.gattCache[address.description] ?? state.peripheral.firmware.services
            state.gattCache[address.description] = services
            return (services, address)
        }
        guard path == (try Self.devicePath(adapter: adapter, address: address)) else {
            throw DBusError(name: "org.bluez.Error.Failed", message: "le-connection-abort-by-local")
        }
        let deviceInterface = try InterfaceName("org.bluez.Device1")
        try server.setProperty(try MemberName("Connected"), to: .boolean(true), interface: deviceInterface, at: path)
        var gattPaths: [ObjectPath] = []
        var characteristicPaths: [String: ObjectPath] = [:]
        for (serviceIndex, service) in services.enumerated() {
            let servicePath = try path.appending("service\(String(serviceIndex + 10, radix: 16))")
            try server.export([DBusInterface(try InterfaceName("org.bluez.GattService1"), properties: [
                DBusProperty(try MemberName("UUID"), value: .string(service.uuid.lowercased())),
                DBusProperty(try MemberName("Device"), value: .objectPath(path)),
                DBusProperty(try MemberName("Primary"), value: .boolean(true)),
            ])], at: servicePath)
            gattPaths.append(servicePath)
            for (index, characteristic) in service.characteristics.enumerated() {
                let characteristicPath = try servicePath.appending("char\(String(index + 100, radix: 16))")
                try exportCharacteristic(characteristic, at: characteristicPath, service: servicePath)
                gattPaths.append(characteristicPath)
                characteristicPaths[characteristic.uuid.uppercased()] = characteristicPath
            }
        }
        state.withLock { state in
            state.gattPaths = gattPaths
            state.characteristicPaths = characteristicPaths
        }
        try server.setProperty(try MemberName("ServicesResolved"), to: .boolean(true), interface: deviceInterface, at: path)
    }

    // MARK: GATT

    private func exportCharacteristic(_ characteristic: SimulatedCharacteristic, at path: ObjectPath, service: ObjectPath) throws {
        let uuid = characteristic.uuid.uppercased()
        var flags: [String] = []
        if characteristic.properties.contains(.read) { flags.append("read") }
        if characteristic.properties.contains(.writeWithoutResponse) { flags.append("write-without-response") }
        if characteristic.properties.contains(.write) { flags.append("write") }
        if characteristic.properties.contains(.notify) { flags.append("notify") }
        if characteristic.properties.contains(.indicate) { flags.append("indicate") }
        let options = self.options
        let methods = [
            DBusMethod(try MemberName("ReadValue"), inputs: [DBusArgument("options", "a{sv}")], outputs: [DBusArgument("value", "ay")]) { [self] _ in
                let result = state.withLock { state in
                    var context = makeContext(state)
                    let result = state.peripheral.firmware.read(uuid, context: &context)
                    state.peripheral.storage = context.storage
                    return result
                }
                switch result {
                case .success(let bytes): return [.byteArray(bytes)]
                case .failure(let error): throw Self.attError(error.code)
                }
            },
            DBusMethod(try MemberName("WriteValue"), inputs: [DBusArgument("value", "ay"), DBusArgument("options", "a{sv}")]) { [self] call in
                guard let bytes = call.arguments.first?.byteArrayValue else { return [] }
                let type = call.arguments.last?.stringKeyedDictionary?["type"]?.stringValue
                drainPackets()
                if type == "command", countPacketAndDrop() {
                    // The packet is lost with the link, as one still in the AcquireWrite socket is.
                    throw DBusError(name: "org.bluez.Error.Failed", message: "Not connected")
                }
                try deliver(bytes, to: uuid, type: type == "command" ? .command : .request)
                return []
            },
            DBusMethod(try MemberName("StartNotify"), runsConcurrently: true) { [self] _ in
                if state.withLock({ $0.notifyStuck.contains(uuid) }) {
                    throw DBusError(name: "org.bluez.Error.NotPermitted", message: "Notify acquired")
                }
                if refusesSubscription(uuid) { try await elevateSecurity(for: uuid) }
                state.withLock { _ = $0.subscribed.insert(uuid) }
                return []
            },
            DBusMethod(try MemberName("StopNotify")) { [self] _ in
                state.withLock { _ = $0.subscribed.remove(uuid) }
                return []
            },
            DBusMethod(try MemberName("AcquireWrite"), inputs: [DBusArgument("options", "a{sv}")],
                       outputs: [DBusArgument("fd", "h"), DBusArgument("mtu", "q")]) { [self] _ in
                guard !options.refuseAcquireWrite else { throw DBusError(name: "org.bluez.Error.NotSupported", message: "Operation is not supported") }
                let (ours, theirs) = try Self.socketPair()
                let source = DispatchSource.makeReadSource(fileDescriptor: ours, queue: DispatchQueue(label: "fake.packets"))
                source.setEventHandler { [self] in drainPackets() }
                source.setCancelHandler { _ = close(ours) }
                state.withLock { state in
                    state.packetSocket = ours
                    state.packetSource = SourceBox(source)
                }
                source.resume()
                return [.unixFileDescriptor(OwnedFileDescriptor(taking: theirs)), .uint16(UInt16(options.mtu))]
            },
            DBusMethod(try MemberName("AcquireNotify"), inputs: [DBusArgument("options", "a{sv}")],
                       outputs: [DBusArgument("fd", "h"), DBusArgument("mtu", "q")], runsConcurrently: true) { [self] _ in
                guard !options.refuseAcquireNotify else { throw DBusError(name: "org.bluez.Error.NotSupported", message: "Operation is not supported") }
                if state.withLock({ $0.notifyStuck.contains(uuid) }) {
                    throw DBusError(name: "org.bluez.Error.NotPermitted", message: "Notify acquired")
                }
                if refusesSubscription(uuid) {
                    // bluetoothd 5.66 `register_notify_io_cb`: the CCCD write failed, the session is freed
                    // without a reply, and the characteristic stays "Notify acquired" until the link drops.
                    state.withLock { state in
                        state.unansweredAcquireNotify += 1
                        state.notifyStuck.insert(uuid)
                    }
                    try await Task.sleep(for: .seconds(60))
                    throw DBusError(name: "org.freedesktop.DBus.Error.NoReply", message: "never answered")
                }
                let (ours, theirs) = try Self.socketPair()
                state.withLock { state in
                    state.notifySockets[uuid] = ours
                    state.subscribed.insert(uuid)
                }
                return [.unixFileDescriptor(OwnedFileDescriptor(taking: theirs)), .uint16(UInt16(options.mtu))]
            },
        ]
        var properties = [
            DBusProperty(try MemberName("UUID"), value: .string(uuid.lowercased())),
            DBusProperty(try MemberName("Service"), value: .objectPath(service)),
            DBusProperty(try MemberName("Flags"), value: .stringArray(flags)),
            DBusProperty(try MemberName("Value"), value: .byteArray([])),
        ]
        if options.exportsMTU { properties.append(DBusProperty(try MemberName("MTU"), value: .uint16(UInt16(options.mtu)))) }
        try server.export([DBusInterface(try InterfaceName("org.bluez.GattCharacteristic1"), methods: methods, properties: properties)], at: path)
    }

    static func attError(_ code: UInt8) -> DBusError {
        let hex = String(code, radix: 16)
        return DBusError(name: "org.bluez.Error.Failed", message: "Operation failed with ATT error: 0x" + (hex.count == 1 ? "0" + hex : hex))
    }

    static func socketPair() throws -> (Int32, Int32) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw DBusError(name: "org.bluez.Error.Failed", message: "socketpair failed")
        }
        _ = fcntl(pair[0], F_SETFL, fcntl(pair[0], F_GETFL) | O_NONBLOCK)
        return (pair[0], pair[1])
    }

    private func makeContext(_ state: State) -> SimulatedContext {
        var context = SimulatedContext(
            now: ContinuousClock.now - start, subscribed: state.subscribed, isBonded: state.peripheral.profile.isBonded || state.paired,
            storage: state.peripheral.storage, flash: Self.zeroFlash)
        context.notificationLength = options.mtu - 3
        return context
    }

    /// Counts a packet written through WriteValue type=command; at `dropLinkAfterPackets` drops the
    /// link as ``drainPackets()`` does and returns true.
    private func countPacketAndDrop() -> Bool {
        let dropNow = state.withLock { state in
            state.packets += 1
            guard let limit = options.dropLinkAfterPackets, state.packets >= limit, state.dropsLeft > 0 else { return false }
            state.dropsLeft -= 1
            return true
        }
        guard dropNow else { return false }
        if options.quitOnDrop {
            server.close()
            return true
        }
        if options.vanishOnDrop { state.withLock { $0.advertising = false } }
        dropLink(reboot: nil)
        if options.vanishOnDrop { vanish() }
        return true
    }

    /// Reads every queued packet from the AcquireWrite socket into the firmware, in order.
    private func drainPackets() {
        var buffer = [UInt8](repeating: 0, count: 600)
        while true {
            var dropNow = false
            let packet: [UInt8]? = state.withLock { state in
                guard let socket = state.packetSocket else { return nil }
                let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, 600, Int32(MSG_DONTWAIT)) }
                guard count > 0 else { return nil }
                state.packets += 1
                if let limit = options.dropLinkAfterPackets, state.packets >= limit, state.dropsLeft > 0 {
                    state.dropsLeft -= 1
                    dropNow = true
                }
                return Array(buffer[0..<count])
            }
            guard let packet else { return }
            if dropNow, options.quitOnDrop {
                server.close()
                return
            }
            if dropNow {
                if options.vanishOnDrop { state.withLock { $0.advertising = false } }
                dropLink(reboot: nil)
                if options.vanishOnDrop { vanish() }
                return
            }
            try? deliver(packet, to: nil, type: .command)
        }
    }

    /// Hands a write to the firmware and carries out its effects.
    private func deliver(_ bytes: [UInt8], to characteristic: String?, type: SimulatedWriteType) throws {
        let (error, effects) = state.withLock { state -> (SimulatedATTError?, [SimulatedEffect]) in
            guard state.connected else { return (nil, []) }
            let uuid = characteristic ?? state.characteristicPaths.keys.first { key in
                state.peripheral.firmware.services.flatMap(\.characteristics).contains {
                    $0.uuid.uppercased() == key && $0.properties.contains(.writeWithoutResponse)
                }
            } ?? ""
            var context = makeContext(state)
            let error = state.peripheral.firmware.write(bytes, to: uuid, type: type, context: &context)
            state.peripheral.storage = context.storage
            return (error, context.effects)
        }
        if let error { throw Self.attError(error.code) }
        for effect in effects {
            switch effect {
            case .notify(let uuid, let value, let delay):
                if delay <= .zero {
                    notify(uuid, value)
                } else {
                    Task { [self] in
                        try? await Task.sleep(for: delay)
                        notify(uuid, value)
                    }
                }
            case .reboot(let target, let delay):
                if delay <= .zero {
                    dropLink(reboot: target)
                } else {
                    // An SMP reset answers first and resets later (`os_mgmt_reset`).
                    Task { [self] in
                        try? await Task.sleep(for: delay)
                        dropLink(reboot: target)
                    }
                }
            }
        }
    }

    private func notify(_ uuid: String, _ value: [UInt8]) {
        let (socket, path, subscribed) = state.withLock { ($0.notifySockets[uuid], $0.characteristicPaths[uuid], $0.subscribed.contains(uuid)) }
        guard subscribed else { return }
        state.withLock { $0.notificationsSent += 1 }
        if let socket {
            _ = value.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        } else if let path, let interface = try? InterfaceName("org.bluez.GattCharacteristic1"), let name = try? MemberName("Value") {
            try? server.setProperty(name, to: .byteArray(value), interface: interface, at: path)
        }
    }

    /// Drops the link: descriptors closed, GATT objects gone, Connected false; optionally reboots the device.
    func dropLink(reboot target: SimulatedBootTarget?) {
        let dropped = state.withLock { state -> (ObjectPath?, [ObjectPath], [Int32], SourceBox?) in
            guard state.connected else {
                if let target { state.peripheral.boot(into: target, at: .zero) }
                return (nil, [], [], nil)
            }
            state.connected = false
            var context = makeContext(state)
            state.peripheral.firmware.connectionDropped(context: &context)
            state.peripheral.storage = context.storage
            let path = try? ObjectPath("/org/bluez/hci0").appending("dev_" + state.peripheral.address.description.replacing(":", with: "_"))
            let gatt = state.gattPaths
            let sockets = Array(state.notifySockets.values)
            let source = state.packetSource
            state.gattPaths = []
            state.characteristicPaths = [:]
            state.notifySockets = [:]
            state.packetSocket = nil
            state.packetSource = nil
            state.subscribed = []
            state.notifyStuck = []
            if let target { state.peripheral.boot(into: target, at: .zero) }
            return (path, gatt, sockets, source)
        }
        for socket in dropped.2 { _ = close(socket) }
        dropped.3?.source.cancel()
        for path in dropped.1.reversed() { try? server.unexport(at: path) }
        if let path = dropped.0, let interface = try? InterfaceName("org.bluez.Device1"),
           let resolved = try? MemberName("ServicesResolved"), let connected = try? MemberName("Connected") {
            try? server.setProperties([resolved: .boolean(false), connected: .boolean(false)], interface: interface, at: path)
        }
    }

    /// The device object disappears (out of range).
    private func vanish() {
        let address = state.withLock { $0.peripheral.address }
        if let adapter = try? ObjectPath("/org/bluez/hci0"), let path = try? Self.devicePath(adapter: adapter, address: address) {
            try? server.unexport(at: path)
        }
    }
}
