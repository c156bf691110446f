public import DFUSimStandIn
import DFUSimulator

/// `--fault SPEC` (the SPECs: ``StandInFaults``).
extension StandInFaults {
    /// Adds one `--fault` specification.
    public mutating func add(parsing text: String) throws(StandInSpecError) {
        let key: String
        let value: String?
        if let equals = text.firstIndex(of: "=") {
            key = String(text[..<equals])
            value = String(text[text.index(after: equals)...])
        } else {
            key = text
            value = nil
        }
        func number(_ text: String?) throws(StandInSpecError) -> Int {
            guard let text, let value = SpecFields.integer(text), value >= 0 else {
                throw StandInSpecError("--fault \(key) needs a non-negative number")
            }
            return value
        }
        func numbers(_ text: String?) throws(StandInSpecError) -> Set<Int> {
            guard let text, !text.isEmpty else { throw StandInSpecError("--fault \(key) needs N[:M…]") }
            var result: Set<Int> = []
            for part in text.split(separator: ":") {
                guard let value = SpecFields.integer(String(part)), value > 0 else {
                    throw StandInSpecError("--fault \(key)=\(text): '\(part)' is not a positive number")
                }
                result.insert(value)
            }
            return result
        }
        switch key {
        case "drop-packet": link.droppedPackets.formUnion(try numbers(value))
        case "corrupt-packet": link.corruptedPackets.formUnion(try numbers(value))
        case "disconnect-after-bytes": link.disconnectAfterPacketBytes = try number(value)
        case "disconnect-at":
            let parts = (value ?? "").split(separator: ":").map(String.init)
            guard (1...2).contains(parts.count), let opCode = SpecFields.integer(parts[0]),
                let code = UInt8(exactly: opCode)
            else { throw StandInSpecError("--fault disconnect-at needs OPCODE[:OCCURRENCE]") }
            let occurrence = parts.count == 2 ? try number(parts[1]) : 1
            link.disconnectAtRequest = SimulatedFaults.RequestTrigger(opCode: code, occurrence: max(1, occurrence))
        case "drop-response": droppedResponses.formUnion(try numbers(value))
        case "adapter-vanish-after-bytes": adapterVanishesAfterPacketBytes = try number(value)
        case "restart-after-bytes": hostRestartsAfterPacketBytes = try number(value)
        case "quit-after-bytes": hostQuitsAfterPacketBytes = try number(value)
        case "power-off-after-bytes": devicePowersOffAfterPacketBytes = try number(value)
        case "late-response":
            let parts = (value ?? "").split(separator: ":").map(String.init)
            guard parts.count == 2, let index = SpecFields.integer(parts[0]), index > 0,
                let milliseconds = SpecFields.integer(parts[1]), milliseconds >= 0
            else { throw StandInSpecError("--fault late-response needs N:MS (notification N, MS milliseconds late)") }
            lateResponses[index] = .milliseconds(milliseconds)
        case "fail-connections": link.failedConnections = try number(value)
        case "response-delay-ms": link.responseDelay = .milliseconds(try number(value))
        case "late-announcement-ms": lateAnnouncement = .milliseconds(try number(value))
        case "late-notify-release-ms": lateNotifyRelease = .milliseconds(try number(value))
        case "fail-pairing":
            guard value == nil else { throw StandInSpecError("--fault fail-pairing takes no value") }
            pairingFails = true
        case "services-resolved-first":
            guard value == nil else { throw StandInSpecError("--fault services-resolved-first takes no value") }
            servicesResolvedFirst = true
        case "no-stale-cache":
            guard value == nil else { throw StandInSpecError("--fault no-stale-cache takes no value") }
            cachesServices = false
        default:
            throw StandInSpecError(
                "unknown fault '\(key)' (drop-packet, corrupt-packet, disconnect-after-bytes, disconnect-at, fail-connections, fail-pairing, response-delay-ms, no-stale-cache, drop-response, adapter-vanish-after-bytes, restart-after-bytes, quit-after-bytes, power-off-after-bytes, late-response, late-announcement-ms, late-notify-release-ms, services-resolved-first)"
            )
        }
    }
}
