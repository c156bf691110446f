import DFUCommand
import DFUCore
import DFUSimulator
import Synchronization

/// Simulated devices behind a ``TransportProvider``: each device label gets its own simulated
/// link on its own virtual clock, kept across runs (so a second run finds the device where the
/// first left it). Records which adapter opened which device and how many links were open at once.
final class SimulatedRig: Sendable {
    /// A device address used throughout the tests.
    static let firstAddress = "C0:FF:EE:00:00:01"

    private struct State {
        var transports: [String: SimulatedTransport] = [:]
        var populated: [String] = []
        var opened: [(adapter: String?, device: String)] = []
        var open = 0
        var mostOpen = 0
        var interrupt: (trigger: InterruptingTransport.Trigger, controller: InterruptController)?
        var barrier = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Devices by label (as `DeviceTarget` prints them: upper-case addresses, or names).
    /// With `openTogether` N, the first N links open only once all N were asked for (proves concurrency).
    init(_ devices: [String: SimulatedPeripheral], faults: [String: SimulatedFaults] = [:], openTogether: Int = 0) {
        state.withLock { state in
            state.barrier = openTogether
            state.populated = devices.keys.sorted()
            for (label, peripheral) in devices {
                state.transports[label] = SimulatedTransport(peripherals: [peripheral], faults: faults[label] ?? SimulatedFaults())
            }
        }
    }

    /// A Secure device with an application that has the buttonless service without bonds and
    /// SoftDevice FWID 0xB7 (what the fixture packages require); a SoftDevice update installs 0x101.
    static func secureDevice(_ address: String = firstAddress, variant: ButtonlessVariant = .withoutBonds, softdeviceID: UInt32 = 0xB7,
                             configure: (inout SecureBootloaderConfiguration) -> Void = { _ in },
                             application: (inout SimulatedButtonlessApplication) -> Void = { _ in }) -> SimulatedPeripheral {
        var configuration = SecureBootloaderConfiguration()
        configure(&configuration)
        var app = SimulatedButtonlessApplication(variant: variant)
        application(&app)
        let profile = SimulatedDeviceProfile(
            address: DFUDeviceAddress(address) ?? DFUDeviceAddress("00:00:00:00:00:01").unsafelyUnwrapped,
            bootloader: .secure(configuration), application: .buttonless(app))
        return SimulatedPeripheral(profile: profile, storage: SimulatedStorage(softdeviceID: softdeviceID, softdeviceIDAfterUpdate: 0x101))
    }

    /// The provider the command gets.
    var provider: TransportProvider {
        TransportProvider { [self] adapter, device in
            await waitForOthers()
            let (transport, interrupt): (SimulatedTransport, (trigger: InterruptingTransport.Trigger, controller: InterruptController)?)
                = state.withLock { state in
                state.opened.append((adapter, device))
                state.open += 1
                state.mostOpen = max(state.mostOpen, state.open)
                if let existing = state.transports[device] { return (existing, state.interrupt) }
                let empty = SimulatedTransport(peripherals: [])
                state.transports[device] = empty
                return (empty, state.interrupt)
            }
            let link: any DFUTransport = interrupt.map { interrupt in
                InterruptingTransport(base: transport, trigger: interrupt.trigger, interrupts: interrupt.controller)
            } ?? transport
            return TransportSession(transport: link, clock: transport.clock) { [self] in
                state.withLock { $0.open -= 1 }
            }
        } scan: { [self] _, _ in
            // Every device as it advertises now, strongest first by the order of their labels.
            state.withLock { state in
                state.populated.enumerated().compactMap { index, label in
                    guard let device = state.transports[label]?.peripheral() else { return nil }
                    return Advertisement(address: device.address, name: device.firmware.advertisedName,
                                         rssi: -40 - index, serviceUUIDs: device.firmware.advertisedServiceUUIDs)
                }
            }
        }
    }

    private func waitForOthers() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let release: [CheckedContinuation<Void, Never>] = state.withLock { state in
                guard state.barrier > 0 else { return [continuation] }
                state.waiting.append(continuation)
                guard state.waiting.count == state.barrier else { return [] }
                state.barrier = 0
                defer { state.waiting = [] }
                return state.waiting
            }
            for waiter in release { waiter.resume() }
        }
    }

    /// The simulated link of a device.
    func transport(_ device: String = firstAddress) -> SimulatedTransport? { state.withLock { $0.transports[device] } }

    /// The adapters devices were opened on, by device.
    var adapters: [String: String?] {
        state.withLock { Dictionary($0.opened.map { ($0.device, $0.adapter) }, uniquingKeysWith: { first, _ in first }) }
    }

    /// The most links open at the same time.
    var mostOpenAtOnce: Int { state.withLock { $0.mostOpen } }

    /// Every write a device received on an endpoint.
    func writes(_ device: String = firstAddress, to endpoint: DFUEndpoint) -> [[UInt8]] {
        (transport(device)?.trace ?? []).compactMap { entry in
            if case .write(endpoint, let bytes) = entry.event { return bytes }
            return nil
        }
    }

    /// Firmware bytes a device received on its Packet characteristic (init packets included).
    func packetBytes(_ device: String = firstAddress) -> Int {
        writes(device, to: .securePacket).reduce(0) { $0 + $1.count }
    }

    /// Runs `dfu ARGUMENTS` against the rig; with `interruptAfterPacketBytes`, interrupts the run
    /// (as Ctrl-C would) once a device received that many bytes on its Packet characteristic; with `interruptWhen`,
    /// at that moment instead.
    func dfu(_ arguments: [String], environment: [String: String] = [:], errorIsTerminal: Bool = false,
             columns: Int? = nil, interruptAfterPacketBytes: Int? = nil, interruptWhen: InterruptingTransport.Trigger? = nil,
             locksDevices: Bool = false) async -> RecordedRun {
        let interrupts = InterruptController()
        let trigger = interruptWhen ?? interruptAfterPacketBytes.map { .packetBytes($0) }
        state.withLock { $0.interrupt = trigger.map { ($0, interrupts) } }
        return await RecordedRun.dfu(arguments: arguments, environment: environment, errorIsTerminal: errorIsTerminal,
                                     transports: provider, interrupts: interrupts, columns: columns, locksDevices: locksDevices)
    }
}
