public import DFUCore
import DFUCrypto
public import DFUSimulator
import DFUFormats

/// An SMP update of a simulated Zephyr/MCUboot target (``SimulatedZephyrTarget``) by the core's runner
/// (``DFURunner/update(_:device:)-(SMPUploadPlan,_)``, which drives ``SMPUploadMachine``), in virtual time over the
/// simulator's link model; ``SMPWireObserver`` takes the figures from the frames on the link.
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
        /// Writes lost because the target had no free buffer (or, without reassembly, answered as no whole request).
        public var droppedByTarget: Int
        /// How the upload framed its requests over the writes, and why.
        public var framing: SMPFraming?
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
        let simulated = SimulatedTransport(peripherals: [device], link: link, faults: faults)
        let clock = simulated.clock
        let transport = SMPWireObserver(base: simulated, now: { clock.elapsed })
        let runner = DFURunner(transport: transport, clock: clock, options: options)
        let report = try await runner.update(plan, device: DFUDeviceSelector(addresses: [address]))
        let figures = transport.figures
        let target = simulated.peripheral().firmware as? SimulatedZephyrTarget
        let first = figures.firstUpload ?? .zero
        return Outcome(elapsed: clock.elapsed, transfer: (figures.lastUploadAnswer ?? first) - first,
                       imageBytes: plan.totalBytes, target: target, connections: figures.connections,
                       retransmissions: figures.retransmissions, maxInFlight: figures.maxInFlight,
                       droppedByTarget: target?.droppedFrames ?? 0, framing: report.smpFraming)
    }
}
