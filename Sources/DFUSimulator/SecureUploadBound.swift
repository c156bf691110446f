/// The fastest a Secure upload can be on a ``LinkModel``, whatever the client does:
/// air time, plus two connection intervals for every mandatory request/answer and receipt (the
/// request goes in one event, the answer comes in the next, the following request can only go in
/// the one after), or the flash time if that is longer (flash overlaps the link except for the
/// last page). Connection set-up and the client's own delays (first-object delay) are not included.
public struct SecureUploadBound: Sendable, Hashable, CustomStringConvertible {
    /// Time the packets occupy the air (packet exchanges back to back).
    public let air: Duration
    /// Mandatory round trips: init (Set PRN, Select, Create, Checksum, Execute, [Set PRN], Select),
    /// Create/Checksum/Execute per object and one per PRN receipt, each two intervals.
    public let roundTrips: Duration
    /// Page erases plus word writes of the whole image, plus the bootloader's bank preparation.
    public let flash: Duration
    /// Writing the last page after its data arrived (cannot overlap the link).
    public let lastPage: Duration

    /// Computes the bound for an image of `imageSize` bytes.
    public init(link: LinkModel, imageSize: Int, initPacketSize: Int, prn: Int, objectSize: Int = 4096) {
        let payload = link.maximumWriteLength - link.maximumWriteLength % 4
        var packets = (initPacketSize + payload - 1) / payload
        var receipts = 0
        var objects = 0
        var offset = 0
        while offset < imageSize {
            let size = min(objectSize, imageSize - offset)
            let count = (size + payload - 1) / payload
            packets += count
            if prn > 0 { receipts += count / prn }
            objects += 1
            offset += size
        }
        air = link.exchangeTime(attPayload: payload) * packets
        let requests = 6 + (prn > 0 ? 1 : 0) + 3 * objects + receipts
        roundTrips = link.connectionInterval * (2 * requests)
        flash = link.flash.pageErase * objects + link.flash.writeTime(bytes: imageSize) + link.flash.firstObjectPreparation
        lastPage = link.flash.writeTime(bytes: min(objectSize, imageSize))
    }

    /// max(air + round trips + last page, flash).
    public var total: Duration { max(air + roundTrips + lastPage, flash) }

    /// e.g. "air 2.1 s + round trips 2.3 s + last page 0.04 s vs flash 6.6 s".
    public var description: String {
        "air \(air) + round trips \(roundTrips) + last page \(lastPage) vs flash \(flash) → \(total)"
    }
}
