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

    /// Parses a specification.
    public init(parsing text: String) throws(StandInSpecError) {
        var fields = try SpecFields(text)
        if let word = fields.words.first { throw StandInSpecError("--link takes key=value fields, not '\(word)'") }
        if let mtu = try fields.takeInteger("mtu") {
            guard (23...517).contains(mtu) else { throw StandInSpecError("mtu=\(mtu) must be 23 to 517") }
            model.mtu = mtu
        }
        if let interval = fields.take("interval_ms") {
            guard let value = Double(interval), value >= 7.5, value <= 4000 else {
                throw StandInSpecError("interval_ms=\(interval) must be 7.5 to 4000")
            }
            model.connectionInterval = .microseconds(Int64(value * 1000))
        }
        if let phy = fields.take("phy") {
            switch phy.lowercased() {
            case "1m": model.phy = .le1M
            case "2m": model.phy = .le2M
            default: throw StandInSpecError("phy=\(phy) must be 1m or 2m")
            }
        }
        if let packets = try fields.takeInteger("packets_per_event") {
            guard packets > 0 else { throw StandInSpecError("packets_per_event=\(packets) must be positive") }
            model.packetsPerEvent = packets
        }
        if let milliseconds = try fields.takeInteger("connect_timeout_ms") {
            guard milliseconds >= 0 else { throw StandInSpecError("connect_timeout_ms must not be negative") }
            connectTimeout = .milliseconds(milliseconds)
        }
        if let milliseconds = try fields.takeInteger("resolve_ms") {
            guard milliseconds >= 0 else { throw StandInSpecError("resolve_ms must not be negative") }
            resolveDelay = .milliseconds(milliseconds)
        }
        if let paced = try fields.takeFlag("smp_paced") { pacesSMP = paced }
        if let milliseconds = try fields.takeInteger("discovery_ms") {
            guard milliseconds >= 0 else { throw StandInSpecError("discovery_ms must not be negative") }
            discoveryDelay = .milliseconds(milliseconds)
        }
        try fields.checkAllTaken(in: "--link \(text)")
    }
}
