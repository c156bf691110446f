/// Figure 7's outcome: `dfu upload` (with AcquireWrite, as it runs by default; the same with `--prn 0`; with
/// `--no-acquire`, the WriteValue path nrfdfu takes; and with `--no-acquire --prn 0`, nrfdfu's exchange exactly) and
/// the peer client (nrfdfu), each as
/// ``UploadClientCost``, and what the peer's column says when it was not measured.
public struct PeerClientFigureResult: Sendable, Hashable, Codable {
    /// What the peer's column holds.
    public enum Peer: Sendable, Hashable, Codable {
        /// `--peer-nrfdfu` was not given.
        case notGiven
        /// The peer at `path` was measured.
        case measured(path: String, cost: UploadClientCost)
        /// The peer at `path` could not be measured, for `reason`.
        case failed(path: String, reason: String)
    }

    /// `dfu upload`'s cost.
    public var dfu: UploadClientCost
    /// `dfu upload --prn 0`'s cost: AcquireWrite without packet receipt notifications (nil in results from before it
    /// was measured).
    public var dfuWithoutPRN: UploadClientCost?
    /// `dfu upload --no-acquire`'s cost (nil in results from before it was measured).
    public var dfuWriteValue: UploadClientCost?
    /// `dfu upload --no-acquire --prn 0`'s cost: no packet receipt notifications, as nrfdfu sets (nil in results from
    /// before it was measured).
    public var dfuWriteValueWithoutPRN: UploadClientCost?
    /// The peer's.
    public var peer: Peer
    /// Firmware bytes of the small and the large upload.
    public var smallBytes: Int
    /// Firmware bytes of the large upload.
    public var largeBytes: Int
    /// The device `dfu-sim run` served for every upload (its `--device` value without the address).
    public var device: String

    /// A result from its parts.
    public init(dfu: UploadClientCost, dfuWithoutPRN: UploadClientCost? = nil, dfuWriteValue: UploadClientCost? = nil,
                dfuWriteValueWithoutPRN: UploadClientCost? = nil, peer: Peer, smallBytes: Int, largeBytes: Int, device: String) {
        self.dfu = dfu
        self.dfuWithoutPRN = dfuWithoutPRN
        self.dfuWriteValue = dfuWriteValue
        self.dfuWriteValueWithoutPRN = dfuWriteValueWithoutPRN
        self.peer = peer
        self.smallBytes = smallBytes
        self.largeBytes = largeBytes
        self.device = device
    }

    /// The peer's cost, when it was measured.
    public var peerCost: UploadClientCost? {
        if case .measured(_, let cost) = peer { return cost }
        return nil
    }
}
