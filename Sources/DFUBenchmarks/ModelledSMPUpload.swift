public import DFUCore
import DFUCrypto
public import DFUSimulator

/// An SMP update of a simulated Zephyr/MCUboot target (``SimulatedZephyrTarget``) by the core's
/// ``SMPUploadMachine``, in virtual time over the simulator's link model.
///
/// The machine does not yet conform to the runner's ``DFUProtocolMachine`` (its setup cannot carry an
/// ``SMPUploadPlan``), so this loop does what the runner does for it: each action on the
/// ``SimulatedTransport``, the result back as the next event, a new connection after `.reconnect` and a
/// new machine (one restart more) after `.restart`.
public struct ModelledSMPUpload: Sendable {
    /// What one update gave.
    public struct Outcome: Sendable {
        /// From the start of the first scan to the end of the last machine.
        public var elapsed: Duration
        /// From the first upload request's first write to the last upload answer's last notification.
        public var transfer: Duration
        /// Upload bytes (image data) the target took.
        public var imageBytes: Int
        /// The target at the end (its slots show what was installed).
        public var target: SimulatedZephyrTarget?
        /// Connections made.
        public var connections: Int
        /// Requests the machine sent again.
        public var retransmissions: Int
        /// The most upload requests in flight at once.
        public var maxInFlight: Int
        /// Writes lost because the target had no free buffer.
        public var droppedByTarget: Int
    }

    /// What is sent, and how.
    public var plan: SMPUploadPlan

    /// An update with `plan`.
    public init(plan: SMPUploadPlan) { self.plan = plan }

    /// A plan for one hash-only image of `size` body bytes, version 2.0.0, with `ending`.
    public static func plan(size: Int, ending: SMPEnding = .testThenConfirm, window: Int? = nil) -> SMPUploadPlan {
        let bytes = SimulatedMCUbootImageBuilder(version: (2, 0, 0, 0)).image(bodySize: size, seed: 7)
        let hash = (try? MCUbootImage(bytes: bytes, name: "image"))?.imageHash ?? []
        return SMPUploadPlan(images: [SMPUploadImage(image: 0, bytes: bytes, imageHash: hash)], ending: ending, window: window)
    }

    /// The address of the modelled device.
    public static let address = DFUDeviceAddress(bytes: [0xC0, 0xFF, 0xEE, 0x00, 0x52, 0x40])

    /// Runs the update against a device built from `configuration` on `link`, with link `faults`.
    public func run(link: LinkModel = .nrf52840SMP, configuration: ZephyrTargetConfiguration = ZephyrTargetConfiguration(),
                    faults: SimulatedFaults = SimulatedFaults(), options: DFUOptions = DFUOptions(),
                    isBonded: Bool = false) async throws(DFUError) -> Outcome {
        guard let address = Self.address else { throw .invalidPart(.application, reason: "no device address") }
        let device = SimulatedPeripheral(profile: .nrf52840Zephyr(address: address, configuration: configuration, isBonded: isBonded))
        let transport = SimulatedTransport(peripherals: [device], link: link, faults: faults)
        let connect = DFUConnectParameters(selector: DFUDeviceSelector(addresses: [address]), scanTimeout: options.scanTimeout,
                                           connectTimeout: options.connectTimeout, uuids: DFUServiceUUIDs())
        var restarts = 0
        var connections = 0
        var reconnections = 0
        var firstUpload: Duration?
        var frameStart = Duration.zero
        var lastUploadAnswer: Duration?
        var retransmissions = 0
        var maxInFlight = 0
        var written = SMPFrameAssembler()
        var heard = SMPFrameAssembler()
        sessions: while true {
            let peer: DFUPeer
            do {
                peer = try await transport.connect(connect)
            } catch {
                reconnections += 1
                if reconnections > options.reconnectAttempts { throw .transport(step: .connecting, error) }
                continue
            }
            connections += 1
            written.reset()
            heard.reset()
            var machine = SMPUploadMachine(DFUMachineSetup(part: nil, options: options, peer: peer, mode: .secureBootloader,
                                                           restarts: restarts), plan: plan)
            defer {
                retransmissions += machine.statistics.retransmissions
                maxInFlight = max(maxInFlight, machine.statistics.maxInFlight)
            }
            var event = DFUMachineEvent.start
            while true {
                switch machine.handle(event) {
                case .enableNotifications(let endpoint):
                    event = await Self.outcome { () throws(DFUTransportError) in try await transport.enableNotifications(on: endpoint) }
                case .write(let pieces, let endpoint, let type, _):
                    event = .written
                    for piece in pieces {
                        if written.bufferedCount == 0 { frameStart = transport.clock.elapsed }
                        event = await Self.outcome { () throws(DFUTransportError) in try await transport.write(piece, to: endpoint, type: type) }
                        if case .disconnected = event { break }
                        for frame in (try? written.append(piece)) ?? [] where frame.header.group == .image && frame.header.command == 1 {
                            firstUpload = firstUpload ?? frameStart
                        }
                    }
                case .lastWrite(let piece, let endpoint):
                    event = await Self.outcome { () throws(DFUTransportError) in try await transport.write(piece, to: endpoint, type: .withoutResponse) }
                case .awaitNotification(_, let timeout):
                    do {
                        let notification = try await transport.nextNotification(within: timeout)
                        for frame in (try? heard.append(notification.bytes)) ?? []
                        where frame.header.group == .image && frame.header.command == 1 {
                            lastUploadAnswer = transport.clock.elapsed
                        }
                        event = .notified(notification.bytes)
                    } catch {
                        event = error == .timedOut ? .timedOut : .disconnected
                    }
                case .wait(let duration):
                    transport.clock.advance(by: duration)
                    event = .delayElapsed
                case .report:
                    event = .reported
                case .finish(.restart):
                    await transport.disconnect()
                    restarts += 1
                    continue sessions
                case .finish(.reconnect(let error)):
                    await transport.disconnect()
                    reconnections += 1
                    if reconnections > options.reconnectAttempts { throw error }
                    continue sessions
                case .finish:
                    await transport.disconnect()
                    break sessions
                case .fail(let error):
                    await transport.disconnect()
                    throw error
                }
            }
        }
        let target = transport.peripheral().firmware as? SimulatedZephyrTarget
        let first = firstUpload ?? .zero
        return Outcome(elapsed: transport.clock.elapsed, transfer: (lastUploadAnswer ?? first) - first,
                       imageBytes: plan.totalBytes, target: target, connections: connections,
                       retransmissions: retransmissions, maxInFlight: maxInFlight,
                       droppedByTarget: target?.droppedFrames ?? 0)
    }

    /// `.written`, or `.disconnected` when the link is gone (any other transport error also ends the connection).
    private static func outcome(_ body: () async throws(DFUTransportError) -> Void) async -> DFUMachineEvent {
        do {
            try await body()
            return .written
        } catch {
            return .disconnected
        }
    }
}
