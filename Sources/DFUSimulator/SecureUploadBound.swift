/// The fastest a Secure upload of one application can be on a ``LinkModel``, whatever the client does,
/// from the start of the scan to the device's reset into the new image.
///
/// Three constraints must all be met before the final Execute can be answered:
/// - the link: connection set-up, then every mandatory request (its answer comes in the next
///   connection event, the next request goes in the event after: two intervals each) and every PRN
///   receipt (two intervals), and the packets, counted in the connection events they need (the last
///   event of a burst is shared with the request that follows it);
/// - the flash: it can only start when the first data Create arrives (after set-up and the init
///   packet's requests), then bank preparation, one page erase per object and every word write, one
///   after another. Writes overlap the arrival of later packets, so apart from this queue nothing of
///   the flash adds to the link path;
/// - per object, when it has more packets than the bootloader has receive buffers: the page erase its
///   Create starts, then the packets that did not fit, then Checksum, Execute and the next Create;
/// - per object, the Execute's answer waits until the object's flash work is done (SDK 15–17
///   `on_data_obj_execute_request_sched`): from its Create, the page erase (and bank preparation for the
///   first) and the object's word writes, up to the next connection event, then one interval for the next request.
///
/// After both, the bootloader hashes the image and resets (30 ms after its answer); neither overlaps.
/// The client's own waits (first-object delay) are not included: they are not mandatory.
public struct SecureUploadBound: Sendable, Hashable, CustomStringConvertible {
    /// Discovery plus connection set-up (``LinkModel/discoveryDelay`` + ``LinkModel/setupIntervals``).
    public let setup: Duration
    /// Time the packets need on the air: the whole exchanges that fit in each event, counted in whole
    /// connection events except each burst's last.
    public let air: Duration
    /// Mandatory requests and receipts, two connection intervals each (the CCCD write included,
    /// the final Execute excluded: the reset, not its answer, ends the upload).
    public let roundTrips: Duration
    /// Page erases the link must wait for: when an object has more packets than the bootloader has receive
    /// buffers, the rest can only arrive after the erase its Create started and the first buffer's write,
    /// from the next connection event on (small MTUs).
    public let eraseStalls: Duration
    /// Time the link waits for Execute answers held until an object's flash work is done, beyond the
    /// object's own link time.
    public let executeWaits: Duration
    /// The link path: set-up + air + round trips + erase stalls + Execute waits.
    public let link: Duration
    /// Flash work: bank preparation, a page erase per object, and word writes of the whole image.
    public let flash: Duration
    /// When the flash can start: set-up, CCCD, the init requests up to the first data Create, init packet air.
    public let flashStart: Duration
    /// Hashing the image after the last Execute, plus the reset delay.
    public let finish: Duration

    /// Computes the bound for an image of `imageSize` bytes sent with PRN `prn` in objects of `objectSize`,
    /// to a bootloader with `receiveBuffers` packet buffers.
    public init(link model: LinkModel, imageSize: Int, initPacketSize: Int, prn: Int, objectSize: Int = 4096,
                receiveBuffers: Int = 17) {
        let payload = max(4, model.maximumWriteLength - model.maximumWriteLength % 4)
        let interval = model.connectionInterval
        let usable = model.usableEventLength
        let fullExchange = model.exchangeTime(attPayload: payload)
        // Whole exchanges per event, as the link model schedules them.
        let perEvent = min(max(1, Int(usable.nanosecondsTotal / max(1, fullExchange.nanosecondsTotal))),
                           model.packetsPerEvent ?? Int.max)
        // A burst of packets starts at an event and fills events with whole exchanges; all but its last
        // event count whole (the request or receipt that follows shares the last one).
        func burst(_ bytes: Int) -> Duration {
            guard bytes > 0 else { return .zero }
            let full = bytes / payload
            var events = (full + perEvent - 1) / perEvent
            if bytes % payload > 0 {
                let inLast = full % perEvent
                let partial = model.exchangeTime(attPayload: bytes % payload)
                let fits = inLast > 0 && inLast < perEvent && fullExchange * inLast + partial <= usable
                if !fits { events += 1 }
            }
            return interval * max(0, events - 1)
        }
        // Packets `first..<count` of an object of `size` bytes: bursts between PRN receipts, two intervals per receipt.
        func packets(_ first: Int, _ count: Int, size: Int) -> (air: Duration, receipts: Int) {
            var air = Duration.zero
            var receipts = 0
            var start = first
            while start < count {
                var end = count
                if prn > 0 { end = min(count, (start / prn + 1) * prn) }
                air += burst(min(size, end * payload) - start * payload)
                if prn > 0, end % prn == 0 { receipts += 1 }
                start = end
            }
            return (air, receipts)
        }
        // Create: op code, object type, 32-bit size.
        let createExchange = model.exchangeTime(attPayload: 6)
        let initBurst = burst(initPacketSize)
        let initRequests = 6 + (prn > 0 ? 1 : 0)  // Set PRN, Select, Create, Checksum, Execute, [Set PRN], Select
        var airTotal = initBurst
        var requests = 1 + initRequests  // the CCCD write first
        var stalls = Duration.zero
        var waits = Duration.zero
        var objects = 0
        var offset = 0
        while offset < imageSize {
            let size = min(objectSize, imageSize - offset)
            let count = (size + payload - 1) / payload
            let all = packets(0, count, size: size)
            requests += all.receipts + 3  // receipts; Create, Checksum, Execute
            airTotal += all.air
            // Only `receiveBuffers` packets fit while the page erases: the rest follow the erase. Both times
            // count from the start of the Create's event, up to the next Create.
            let linkTime = interval * (2 * (3 + all.receipts)) + all.air
            var stall = Duration.zero
            if count > receiveBuffers {
                var erase = model.flash.pageErase
                if objects == 0 { erase += model.flash.firstObjectPreparation }
                let late = packets(receiveBuffers, count, size: size)
                // The Create is the first exchange of its event (nothing else is pending); the first late
                // packet must arrive after the erase and the write that frees its buffer, and the link, idle
                // during the erase, sends it at the start of an event.
                let ready = createExchange + erase + model.flash.writeTime(bytes: min(size, payload)) - fullExchange
                let lateStart = interval * Int((max(0, ready.nanosecondsTotal) + interval.nanosecondsTotal - 1)
                                               / max(1, interval.nanosecondsTotal))
                let eraseTime = lateStart + late.air + interval * (2 * late.receipts + 4)
                stall = max(.zero, eraseTime - linkTime)
                stalls += stall
            }
            // The Execute is answered when the erase and the object's writes are done; the next request goes
            // at least one interval later. The last object's answer is not waited for (the reset ends it).
            let isLast = offset + size >= imageSize
            var flashWork = model.flash.pageErase + model.flash.writeTime(bytes: size)
            if objects == 0 { flashWork += model.flash.firstObjectPreparation }
            // The Create is the first exchange of its event, so the answer goes at the first event after the
            // flash is done, a whole number of intervals after the Create's event.
            let ready = createExchange + flashWork
            let answered = interval * Int((ready.nanosecondsTotal + interval.nanosecondsTotal - 1) / max(1, interval.nanosecondsTotal))
            let objectFlash = isLast ? ready : answered + interval
            let objectLink = linkTime + stall - (isLast ? interval * 2 : .zero)
            waits += max(.zero, objectFlash - objectLink)
            objects += 1
            offset += size
        }
        setup = model.discoveryDelay + interval * model.setupIntervals
        air = airTotal
        roundTrips = interval * (2 * (requests - 1))
        eraseStalls = stalls
        executeWaits = waits
        link = setup + air + roundTrips + stalls + waits
        flash = model.flash.pageErase * objects + model.flash.writeTime(bytes: imageSize) + model.flash.firstObjectPreparation
        flashStart = setup + interval * (2 * (1 + initRequests)) + initBurst
        finish = model.flash.hashPerKilobyte * (imageSize / 1024 + 1) + .milliseconds(30)
    }

    /// max(link path, flash start + flash) + finish.
    public var total: Duration { max(link, flashStart + flash) + finish }

    /// Which path limits: "flash" when the flash queue is longer than the link path or the link waits for
    /// held Execute answers, else "link".
    public var limitedBy: String { link >= flashStart + flash && executeWaits == .zero ? "link" : "flash" }

    /// e.g. "link 6.8 s (set-up 0.23 s, air 2.1 s, round trips 4.5 s) vs flash 0.5 s + 6.6 s; + finish 0.07 s → 7.0 s".
    public var description: String {
        "link \(link) (set-up \(setup), air \(air), round trips \(roundTrips), erase stalls \(eraseStalls), Execute waits \(executeWaits))"
            + " vs flash \(flashStart) + \(flash);"
            + " + finish \(finish) → \(total)"
    }
}
