/// Renders a ``BenchReport`` as the plain-text tables `make bench` prints (Markdown-compatible).
public struct BenchTable: Sendable {
    /// The report.
    public let report: BenchReport

    /// A renderer for `report`.
    public init(report: BenchReport) { self.report = report }

    /// All tables, with the machine first.
    public var text: String {
        var lines: [String] = []
        let machine = report.machine
        lines.append("Machine: \(machine.cores) cores, \(machine.cpuModel); kernel \(machine.kernel)")
        lines.append("Versions: dfu \(machine.dfu); \(machine.swift); \(machine.bluez)")
        lines.append("Date: \(machine.date); benchmark took \(Spread.format(report.benchSeconds, digits: 1)) s")
        lines += linkLines
        lines += slowFlashLines
        lines += hostCostLines
        lines += scaleLines
        lines += SMPFigure.lines(report.smp, in: self)
        lines += SMPClientsFigure.lines(report.smpClients, in: self)
        lines += PeerClientFigure.lines(report.peerClient, in: self)
        for skipped in report.skipped {
            lines.append("")
            lines.append("Figure \(skipped.figure): not measured: \(skipped.reason)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Figure 1: the modelled upload against the model's lower bound.
    private var linkLines: [String] {
        guard !report.link.isEmpty else { return [] }
        var lines: [String] = []
        lines.append("")
        lines.append("Figure 1: modelled upload (virtual time, simulator link model) vs the model's lower bound")
        lines += render(header: ["app", "PHY", "CI ms", "MTU", "PRN", "actual s", "bound s", "bound/actual", "limit",
                                 "lost", "unpaced s (lost)", "better settings"],
                        rows: report.link.map { row in
            [
                "\(row.kilobytes) KB", row.phy, Spread.format(row.connectionIntervalMilliseconds, digits: 1), "\(row.mtu)",
                "\(row.prn)", row.seconds.formatted(digits: 3), Spread.format(row.boundSeconds, digits: 3),
                Spread.format(row.ratio, digits: 3), row.limitedBy, "\(row.lostPackets)\(row.fellBack ? " (fell back)" : "")",
                "\(Spread.format(row.unpacedSeconds, digits: 2)) (\(row.unpacedLostPackets))",
                row.better.map { "\($0): \(Spread.format(row.betterSeconds ?? 0, digits: 3)) s" } ?? "defaults",
            ]
        })
        let ratios = report.link.map(\.ratio)
        let lost = report.link.map(\.lostPackets).reduce(0, +)
        if let worst = ratios.min(), let spread = Spread(ratios) {
            lines.append("bound/actual: worst \(Spread.format(worst, digits: 3)), median \(Spread.format(spread.median, digits: 3));"
                         + " rows ≥ 0.95: \(ratios.count { $0 >= 0.95 }) of \(ratios.count); lost packets in all rows: \(lost)")
        }
        return lines
    }

    /// Figure 1b: flash slower than the pacer assumes.
    private var slowFlashLines: [String] {
        guard !report.slowFlash.isEmpty else { return [] }
        var lines: [String] = []
        lines.append("")
        lines.append("Figure 1b: flash slower than the pacer assumes (200 KB, 2M, 15 ms, PRN 0)")
        lines += render(header: ["MTU", "flash", "flash alone s", "actual s", "lost", "PRN fell back", "unpaced s (lost)"],
                        rows: report.slowFlash.map { row in
            [
                "\(row.mtu)", "\(row.factor)x", Spread.format(row.flashSeconds, digits: 2),
                row.seconds.map { Spread.format($0, digits: 2) } ?? row.failure ?? "failed",
                row.seconds == nil ? "–" : "\(row.lostPackets)", row.seconds == nil ? "–" : row.fellBack ? "yes" : "no",
                row.unpacedSeconds.map { "\(Spread.format($0, digits: 2)) (\(row.unpacedLostPackets))" }
                    ?? row.unpacedFailure ?? "failed",
            ]
        })
        return lines
    }

    /// Figure 2: the host's cost of an upload, and the start-up's.
    private var hostCostLines: [String] {
        guard !report.host.isEmpty else { return [] }
        var lines: [String] = []
        lines.append("")
        lines.append("Figure 2: host cost of a 500 KB upload through dfu-sim on a private dbus-daemon"
                     + " (`dfu upload`: the dfu process; engine: DFURunner + BlueZTransport in a child of dfu-bench)")
        lines += render(header: ["writes", "upload s", "CPU s", "CPU s/MB", "beyond start-up s/MiB", "peak RSS MB",
                                 "context switches", "futex calls", "poll calls", "first byte ms", "first firmware byte ms"],
                        rows: report.host.map { row in
            [
                row.writeMode, row.wallSeconds.formatted(digits: 2), row.cpuSeconds.formatted(digits: 3),
                row.cpuSecondsPerMegabyte.formatted(digits: 3),
                row.cpuBeyondStartupSecondsPerMebibyte?.formatted(digits: 3) ?? "-",
                row.peakRSSMegabytes.formatted(digits: 1), row.contextSwitches?.formatted(digits: 0) ?? "-",
                row.futexCalls.map(String.init) ?? "-", row.pollCalls.map(String.init) ?? "-",
                row.firstByteMilliseconds.formatted(digits: 0), row.firstFirmwareByteMilliseconds.formatted(digits: 0),
            ]
        })
        if let startup = report.startup {
            lines.append("start-up, `dfu --version` (median of \(startup.runs)): \(startup.cpuMilliseconds.formatted(digits: 1)) ms CPU,"
                         + " \(startup.peakRSSMegabytes.formatted(digits: 1)) MB peak RSS")
        }
        lines.append("goals: beyond start-up ≤ 0.15 s/MiB with AcquireWrite, ≤ 0.3 s/MiB with --no-acquire;"
                     + " start-up ≤ 10 ms CPU and ≤ 12 MB; upload peak RSS ≤ 16 MB; first byte ≤ 150 ms")
        return lines
    }

    /// Figure 4: devices updated at once in one process.
    private var scaleLines: [String] {
        guard !report.scale.isEmpty else { return [] }
        var lines: [String] = []
        lines.append("")
        lines.append("Figure 4: N devices updated at once in one process (modelled 200 KB uploads, 1M, 15 ms, MTU 247)")
        lines += render(header: ["N", "adapters", "modelled s", "N × single s", "speed-up", "slowest device B/s",
                                 "host wall s", "host CPU s", "peak RSS MB"],
                        rows: report.scale.map { row in
            [
                "\(row.devices)", row.adapters, Spread.format(row.modelledSeconds, digits: 2),
                Spread.format(row.serialSeconds, digits: 2), Spread.format(row.speedUp, digits: 2),
                Spread.format(row.slowestDeviceBytesPerSecond, digits: 0), row.hostWallSeconds.formatted(digits: 2),
                row.hostCPUSeconds.formatted(digits: 2), row.peakRSSMegabytes.formatted(digits: 1),
            ]
        })
        return lines
    }

    /// A Markdown table with padded columns.
    func render(header: [String], rows: [[String]]) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            "| " + widths.indices.map { column in
                let cell = cells.indices.contains(column) ? cells[column] : ""
                return cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: " | ") + " |"
        }
        return [line(header), "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"]
            + rows.map(line)
    }
}
