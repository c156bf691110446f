/// Figure 6's comparisons, from the rows of one run.
public struct SMPClientsFigureResult: Sendable, Hashable, Codable {
    /// `dfu` over SMP, smpmgr over SMP, and `dfu` over Secure DFU (the nRF5 path's host cost, for reference).
    public var rows: [SMPClientsRow]
    /// Clients whose upload failed, and why (their rows are left out).
    public var notMeasured: [String: String] = [:]
    /// The modelled bound of the SMP transfer on the same link and target (``SMPTransferBound``), seconds.
    public var boundSeconds: Double
    /// "link" or "flash".
    public var boundLimitedBy: String
    /// The SMP image's size, bytes (the bound's image).
    public var imageBytes: Int
    /// The link played by `dfu-sim` (its `--link` value).
    public var link: String

    /// The row of `client`, if measured.
    public func row(_ client: String) -> SMPClientsRow? { rows.first { $0.client == client } }

    /// The bound's rate, bytes/s.
    public var boundBytesPerSecond: Double { boundSeconds > 0 ? Double(imageBytes) / boundSeconds : 0 }
}
