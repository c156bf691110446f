import DFUCore
import DFUSimulator

/// Figure 5: an SMP image transfer to a simulated Zephyr/MCUboot target on an nRF52840-like link (LE 2M,
/// MTU 498, 15 ms; reassembly, buf_size 2475, buf_count 4; nRF52840 flash timings), by the core's SMP upload
/// machine, against the model's link-and-flash bound (``SMPTransferBound``) and against the same machine held
/// to one request at a time. The device was updated before, so its secondary slot holds the old image and
/// must be erased. Pure virtual time.
public struct SMPFigure: Sendable {
    /// Image sizes (bytes of body).
    public var sizes = [200_000]
    /// Connection intervals in milliseconds: 15 (the nRF52840-like link) and 50 (the upper end of the 30–50 ms
    /// Linux asks for when the peripheral does not change it), where round trips weigh more.
    public var intervals = [15, 50]

    /// The defaults.
    public init() {}

    /// Runs every row.
    public func run(progress: (String) -> Void = { _ in }) async throws -> [SMPFigureRow] {
        var rows: [SMPFigureRow] = []
        for size in sizes { for interval in intervals {
            for progressive in [false, true] {
                var configuration = ZephyrTargetConfiguration()
                configuration.eraseProgressively = progressive
                configuration.images = [.init(slotSize: 0x7_6000,
                                              initialSecondary: SimulatedMCUbootImageBuilder(version: (0, 9, 0, 0)).image(bodySize: size))]
                var link = LinkModel.nrf52840SMP
                link.connectionInterval = .milliseconds(interval)
                let windowed = try await ModelledSMPUpload(plan: ModelledSMPUpload.plan(size: size)).run(link: link, configuration: configuration)
                let single = try await ModelledSMPUpload(plan: ModelledSMPUpload.plan(size: size, window: 1))
                    .run(link: link, configuration: configuration)
                let imageBytes = ModelledSMPUpload.plan(size: size).totalBytes
                let bound = SMPTransferBound(link: link, configuration: configuration, imageSize: imageBytes)
                let row = SMPFigureRow(imageBytes: imageBytes, intervalMilliseconds: interval, erase: progressive ? "during" : "before",
                                       windowedSeconds: windowed.transfer.dfuSecondsValue, window: windowed.maxInFlight,
                                       oneAtATimeSeconds: single.transfer.dfuSecondsValue, boundSeconds: bound.total.dfuSecondsValue,
                                       limitedBy: bound.limitedBy, dropped: windowed.droppedByTarget)
                rows.append(row)
                progress("figure 5: \(imageBytes) bytes, \(interval) ms, erase \(row.erase): \(Spread.format(row.windowedSeconds, digits: 3)) s"
                         + " (bound \(Spread.format(row.boundSeconds, digits: 3)) s, one at a time \(Spread.format(row.oneAtATimeSeconds, digits: 3)) s)")
            }
        } }
        return rows
    }

    /// The table `make bench` prints for `rows`.
    static func lines(_ rows: [SMPFigureRow], in table: BenchTable) -> [String] {
        guard !rows.isEmpty else { return [] }
        var lines = ["", "Figure 5: modelled SMP transfer to a Zephyr/MCUboot target (virtual time; nRF52840-like link: 2M, MTU 498,"
                     + " reassembly, buf_size 2475, buf_count 4)"]
        lines += table.render(header: ["image", "CI ms", "erase", "window", "transfer s", "kB/s", "bound s", "bound/actual", "limit",
                                            "one at a time s", "speed-up", "dropped"],
                                   rows: rows.map { row in
            [
                "\(row.imageBytes) B", "\(row.intervalMilliseconds)", row.erase, "\(row.window)", Spread.format(row.windowedSeconds, digits: 3),
                Spread.format(Double(row.imageBytes) / 1000 / max(row.windowedSeconds, 1e-9), digits: 1),
                Spread.format(row.boundSeconds, digits: 3), Spread.format(row.boundRatio, digits: 3), row.limitedBy,
                Spread.format(row.oneAtATimeSeconds, digits: 3), Spread.format(row.speedUp, digits: 2) + "x", "\(row.dropped)",
            ]
        })
        return lines
    }
}
