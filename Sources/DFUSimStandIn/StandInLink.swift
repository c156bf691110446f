public import DFUSimulator

/// `--link KEY=VALUE[,…]`: the simulated radio link and host timings.
///
/// Keys: `mtu` (23–517, default 247), `interval_ms` (connection interval, 7.5–4000), `phy` (`1m` or `2m`),
/// `packets_per_event`, `connect_timeout_ms` (how long Connect to an absent device takes to fail),
/// `resolve_ms` (real time from Connect's reply to ServicesResolved), `discovery_ms` (real time from
/// StartDiscovery until devices in range are reported), `smp_paced=yes` (SMP answers at the modelled pace).
public struct StandInLink: Sendable, Hashable {
    /// The modelled link (MTU, interval, PHY, flash).
    public var model = LinkModel()
    /// Real time a Connect to a device that does not answer takes before it fails.
    public var connectTimeout: Duration = .milliseconds(1500)
    /// Real time from Connect's reply until ServicesResolved.
    public var resolveDelay: Duration = .milliseconds(10)
    /// Real time from StartDiscovery (or a reboot during discovery) until devices are reported.
    public var discoveryDelay: Duration = .milliseconds(20)
    /// Whether SMP devices answer at the modelled link's pace (`smp_paced=yes`): requests overlap in the model
    /// as a client's window lets them, and each answer reaches the client when the model says it would.
    /// Off by default: answers come as soon as the model has handled the request.
    public var pacesSMP = false

    /// The defaults: MTU 247, 15 ms, LE 1M.
    public init() {}
}
