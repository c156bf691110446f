import DFUCore
public import DFUSimulator
import Foundation

/// Figure 1: modelled upload time on the simulator's link model against the model's lower bound,
/// for every combination of size, PHY, connection interval, MTU and PRN.
public struct LinkFigure: Sendable {
    /// Application sizes in KB (1000 bytes).
    public var kilobytes = [200, 500]
    /// PHYs.
    public var phys: [LinkModel.PHY] = [.le1M, .le2M]
    /// Connection intervals in µs.
    public var connectionIntervals = [7500, 15000]
    /// ATT MTUs.
    public var mtus = [23, 247]
    /// PRN intervals.
    public var prns: [UInt16] = [0, 12]
    /// Timed runs per row after one warm-up.
    public var runs = 3

    /// The full matrix.
    public init() {}

    /// The link model for one row.
    public static func link(phy: LinkModel.PHY, intervalMicroseconds: Int, mtu: Int) -> LinkModel {
        var link = LinkModel()
        link.phy = phy
        link.connectionInterval = .microseconds(intervalMicroseconds)
        link.mtu = mtu
        return link
    }

    /// Settings tried besides the defaults, to find the best for a row.
    static func variants(prn: UInt16) -> [(String, DFUOptions)] {
        var spare = DFUOptions()
        spare.packetReceiptNotifications = prn
        spare.flashPacing?.receiveBuffers = 16
        var exact = DFUOptions()
        exact.packetReceiptNotifications = prn
        exact.flashPacing?.bankPreparation = .milliseconds(300)
        exact.flashPacing?.arrivalAllowance = .zero
        var variants = [("pacing with 16 buffers", spare),
                        ("pacing with the simulator's exact flash figures", exact)]
        if prn != 0 {
            var noReceipts = DFUOptions()
            noReceipts.packetReceiptNotifications = 0
            variants.append(("PRN 0", noReceipts))
        }
        return variants
    }

    /// Runs every row; `progress` gets a line per row.
    public func run(progress: (String) -> Void = { _ in }) async throws -> [LinkFigureRow] {
        var rows: [LinkFigureRow] = []
        for size in kilobytes {
            let upload = ModelledUpload(size: size * 1000)
            for phy in phys {
                for interval in connectionIntervals {
                    for mtu in mtus {
                        for prn in prns {
                            let row = try await measure(upload, kilobytes: size, phy: phy, interval: interval, mtu: mtu, prn: prn)
                            rows.append(row)
                            progress("figure 1: \(size) KB \(row.phy) \(interval / 1000).\(interval % 1000 / 100) ms MTU \(mtu) PRN \(prn):"
                                     + " ratio \(Spread.format(row.ratio, digits: 3)), lost \(row.lostPackets)")
                        }
                    }
                }
            }
        }
        return rows
    }

    func measure(_ upload: ModelledUpload, kilobytes: Int, phy: LinkModel.PHY, interval: Int, mtu: Int,
                 prn: UInt16) async throws -> LinkFigureRow {
        let link = Self.link(phy: phy, intervalMicroseconds: interval, mtu: mtu)
        var options = DFUOptions()
        options.packetReceiptNotifications = prn
        let bound = upload.bound(link: link, prn: prn).total.dfuSecondsValue
        var seconds: [Double] = []
        var host: [Double] = []
        var outcome: ModelledUpload.Outcome?
        for run in 0...max(1, runs) {
            let started = ContinuousClock.now
            let result = try await upload.run(link: link, options: options)
            let wall = started.duration(to: ContinuousClock.now).dfuSecondsValue * 1000
            guard result.installed else { throw BenchError.notInstalled("\(kilobytes) KB \(phy) \(interval) µs MTU \(mtu)") }
            if run > 0 {
                seconds.append(result.elapsed.dfuSecondsValue)
                host.append(wall)
            }
            outcome = result
        }
        var unpaced = options
        unpaced.flashPacing = nil
        let old = try await upload.run(link: link, options: unpaced)
        guard let outcome, let spread = Spread(seconds), let hostSpread = Spread(host) else {
            throw BenchError.noRuns
        }
        var better: (String, Double)?
        for (name, variant) in Self.variants(prn: prn) {
            let tried = try await upload.run(link: link, options: variant)
            let time = tried.elapsed.dfuSecondsValue
            guard tried.installed, tried.lostPackets == 0, time < spread.median * 0.99 else { continue }
            if better.map({ time < $0.1 }) ?? true { better = (name, time) }
        }
        if better == nil, old.lostPackets == 0, old.installed, old.elapsed.dfuSecondsValue < spread.median * 0.99 {
            better = ("no flash pacing", old.elapsed.dfuSecondsValue)
        }
        return LinkFigureRow(
            kilobytes: kilobytes, phy: phy == .le1M ? "1M" : "2M", connectionIntervalMilliseconds: Double(interval) / 1000,
            mtu: mtu, prn: Int(prn), seconds: spread, boundSeconds: bound, ratio: bound / spread.median,
            limitedBy: upload.bound(link: link, prn: prn).limitedBy, lostPackets: outcome.lostPackets,
            fellBack: outcome.fellBack, unpacedSeconds: old.elapsed.dfuSecondsValue, unpacedLostPackets: old.lostPackets,
            better: better?.0, betterSeconds: better?.1, hostMilliseconds: hostSpread)
    }
}
