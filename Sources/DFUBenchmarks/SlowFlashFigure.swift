import DFUCore
import DFUSimulator

/// Figure 1b: how the defaults cope with a device whose flash is slower than the datasheet maxima the
/// pacer assumes (200 KB, 2M PHY, 15 ms, PRN 0: the link far faster than the flash), with full packets
/// (MTU 247) and with 20-byte packets (MTU 23), whose objects hold more packets than the receive buffers.
public struct SlowFlashFigure: Sendable {
    /// Slow-down factors of the simulated flash.
    public var factors = [1, 2, 3, 8]
    /// ATT MTUs.
    public var mtus = [247, 23]

    /// The defaults.
    public init() {}

    /// Runs every row.
    public func run(progress: (String) -> Void = { _ in }) async throws -> [SlowFlashRow] {
        let upload = ModelledUpload(size: 200_000)
        var rows: [SlowFlashRow] = []
        for mtu in mtus { for factor in factors {
            var link = LinkFigure.link(phy: .le2M, intervalMicroseconds: 15000, mtu: mtu)
            link.flash.wordWrite = link.flash.wordWrite * factor
            link.flash.pageErase = link.flash.pageErase * factor
            link.flash.firstObjectPreparation = link.flash.firstObjectPreparation * factor
            var options = DFUOptions()
            options.packetReceiptNotifications = 0
            let paced = try await Self.attempt(upload, link: link, options: options)
            options.flashPacing = nil
            let unpaced = try await Self.attempt(upload, link: link, options: options)
            let flash = upload.bound(link: link, prn: 0).flash.dfuSecondsValue
            rows.append(SlowFlashRow(factor: factor, mtu: mtu, seconds: paced.outcome?.elapsed.dfuSecondsValue,
                                     lostPackets: paced.outcome?.lostPackets ?? 0, fellBack: paced.outcome?.fellBack ?? false,
                                     unpacedSeconds: unpaced.outcome?.elapsed.dfuSecondsValue,
                                     unpacedLostPackets: unpaced.outcome?.lostPackets ?? 0,
                                     failure: paced.failure, unpacedFailure: unpaced.failure, flashSeconds: flash))
            progress("figure 1b: MTU \(mtu), flash \(factor)x: \(paced.outcome.map { Spread.format($0.elapsed.dfuSecondsValue, digits: 2) + " s" } ?? "failed")")
        } }
        return rows
    }

    /// Runs one upload; an engine error is a result here, not a failure of the benchmark.
    static func attempt(_ upload: ModelledUpload, link: LinkModel, options: DFUOptions) async throws
        -> (outcome: ModelledUpload.Outcome?, failure: String?) {
        do {
            let outcome = try await upload.run(link: link, options: options)
            guard outcome.installed else { throw BenchError.notInstalled("slow flash") }
            return (outcome, nil)
        } catch {
            if let error = error as? DFUError, case .crcMismatch = error { return (nil, "failed: packets lost on every attempt of one object") }
            return (nil, "failed: \(error)")
        }
    }
}
