public import DFUSimulator

/// What an SMP client did with one simulated nRF Connect SDK device, as both servers of the simulator
/// report it (`dfu-sim run`'s device statistics and `dfu-sim peripheral`'s report, with the same keys).
public struct SMPStatistics: Sendable, Hashable, Codable {
    /// Request frames the SMP server received.
    public var requests: Int
    /// The most requests waiting for an answer at once.
    public var maximumInFlight: Int
    /// Upload requests for an offset already received in the same upload.
    public var retransmissions: Int
    /// Resets of the device (each runs MCUboot).
    public var resets: Int

    /// What `traffic` counted at the device, and the device's resets.
    public init(traffic: SMPTrafficCounter, target: SimulatedZephyrTarget) {
        requests = traffic.requests
        maximumInFlight = traffic.maximumInFlight
        retransmissions = traffic.retransmissions
        resets = target.resets
    }

    enum CodingKeys: String, CodingKey {
        case requests = "smp_requests"
        case maximumInFlight = "smp_max_in_flight"
        case retransmissions = "smp_retransmissions"
        case resets = "smp_resets"
    }
}
