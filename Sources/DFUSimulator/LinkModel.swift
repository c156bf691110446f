/// The figures of the simulated Bluetooth LE link, from which all simulated time is computed.
///
/// Packets travel in connection events every `connectionInterval`; an event holds as many
/// packet exchanges (a data PDU, T_IFS, the peer's empty PDU, T_IFS) as fit in `eventLength`,
/// optionally capped by `packetsPerEvent`. Responses to requests come in the next event.
public struct LinkModel: Sendable, Hashable {
    /// The radio PHY.
    public enum PHY: String, Sendable, Hashable, CaseIterable {
        /// LE 1M: 8 µs per byte, 1-byte preamble.
        case le1M
        /// LE 2M: 4 µs per byte, 2-byte preamble.
        case le2M

        var microsecondsPerByte: Int { self == .le1M ? 8 : 4 }
        var preambleBytes: Int { self == .le1M ? 1 : 2 }
    }

    /// Connection interval; 15 ms is what the Secure bootloader requests.
    public var connectionInterval: Duration = .milliseconds(15)
    /// Radio time usable in one event (default: the interval minus 1.25 ms for scheduling).
    public var eventLength: Duration?
    /// Upper bound on packets per event (nil: as many as fit).
    public var packetsPerEvent: Int?
    /// ATT MTU (247 by default; the write length is MTU − 3).
    public var mtu = 247
    /// The PHY.
    public var phy: PHY = .le1M
    /// Flash timings of the target.
    public var flash = FlashTimings()
    /// Time from the start of a scan until a device advertising now is seen.
    public var discoveryDelay: Duration = .milliseconds(50)
    /// Connection establishment, service discovery, MTU and PHY exchange, in connection intervals.
    public var setupIntervals = 12
    /// How long a target takes to boot after a reset before it advertises.
    public var bootTime: Duration = .milliseconds(200)

    /// The defaults: 15 ms, MTU 247, LE 1M, nRF52 flash.
    public init() {}

    /// The usable time per event.
    public var usableEventLength: Duration { eventLength ?? (connectionInterval - .microseconds(1250)) }

    /// Longest write without response.
    public var maximumWriteLength: Int { mtu - 3 }

    /// Air time of one exchange carrying an ATT payload of `bytes` (ATT header 3, L2CAP 4, LL header 2,
    /// access address 4, CRC 3, preamble), plus T_IFS, the peer's empty PDU and T_IFS. Writes longer
    /// than the 251-byte data length are split into several PDUs.
    public func exchangeTime(attPayload bytes: Int) -> Duration {
        var remaining = bytes + 3 + 4
        var microseconds = 0
        let perByte = phy.microsecondsPerByte
        let overhead = phy.preambleBytes + 4 + 2 + 3
        repeat {
            let chunk = min(remaining, 251)
            remaining -= chunk
            microseconds += (overhead + chunk) * perByte + 150 + overhead * perByte + 150
        } while remaining > 0
        return .microseconds(microseconds)
    }

    /// The latest a peripheral's host learns that a notification it queued now was received: the notification goes
    /// in the next event (at most one interval away), and the central acknowledges it in its first packet of the
    /// event after (one interval more, and that packet's air time, the longest a write can take). A write the
    /// central sends on the notification travels in that same packet, so it reaches the peripheral no later.
    public var latestNotificationAcknowledgement: Duration {
        connectionInterval * 2 + exchangeTime(attPayload: maximumWriteLength)
    }

    /// How many full-size packets fit in one event.
    public var fullPacketsPerEvent: Int {
        let fit = max(1, Int(usableEventLength.nanosecondsTotal / exchangeTime(attPayload: maximumWriteLength).nanosecondsTotal))
        return min(fit, packetsPerEvent ?? Int.max)
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanosecondsTotal: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }

    /// The duration in seconds as a Double.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
