public import DFUSimStandIn
import DFUSimulator

/// `--link KEY=VALUE[,…]` (the keys: ``StandInLink``).
extension StandInLink {
    /// Parses a specification.
    public init(parsing text: String) throws(StandInSpecError) {
        self.init()
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
