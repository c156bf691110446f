@testable import DFUBenchmarks
import Foundation
import Testing

@Suite struct PeerClientFigureTests {
    /// A `dfu-bench-rusage` report of `cpuMilliseconds` CPU and `rssKilobytes` peak RSS.
    static func report(cpuMilliseconds: Int, rssKilobytes: Int = 20_480, wallMilliseconds: Int = 1_000) throws -> ProcessUsageReport {
        try #require(ProcessUsageReport(parsing: "dfu-bench-rusage: status=0 wall_us=\(wallMilliseconds * 1000)"
            + " user_us=\(cpuMilliseconds * 1000) sys_us=0 maxrss_kb=\(rssKilobytes) nvcsw=1 nivcsw=0"))
    }

    @Test func thePeerIsAnOptionThatNeedsAPath() throws {
        #expect(try BenchOptions([]).peerNrfdfu == nil)
        #expect(try BenchOptions([]).figures.contains("7"))
        let options = try BenchOptions(["--peer-nrfdfu", "/work/peer/nrfdfu/build/nrfdfu", "--figures", "7"])
        #expect(options.peerNrfdfu == "/work/peer/nrfdfu/build/nrfdfu")
        #expect(options.figures == ["7"])
        #expect(throws: BenchError.usage("--peer-nrfdfu needs the path of nrfdfu")) { try BenchOptions(["--peer-nrfdfu"]) }
        #expect(throws: BenchError.usage("--peer-nrfdfu needs the path of nrfdfu")) { try BenchOptions(["--peer-nrfdfu", ""]) }
        #expect(BenchOptions.usage.contains("[--peer-nrfdfu PATH]"))
    }

    @Test func theCostPerMebibyteIsTheDifferenceOfTheTwoSizesRunByRun() throws {
        // 1 MiB more firmware: 4096 and 4096 + 2^20 bytes.
        let cost = try #require(UploadClientCost(
            startupSeconds: [0.008, 0.010, 0.009],
            small: [try Self.report(cpuMilliseconds: 40), try Self.report(cpuMilliseconds: 50), try Self.report(cpuMilliseconds: 45)],
            large: [try Self.report(cpuMilliseconds: 300, rssKilobytes: 21_504), try Self.report(cpuMilliseconds: 290),
                    try Self.report(cpuMilliseconds: 320, wallMilliseconds: 16_000)],
            smallBytes: 4096, largeBytes: 4096 + 1_048_576))
        #expect(cost.cpuPerMebibyteMilliseconds == Spread([260, 240, 275]))
        #expect(cost.fixedCostMilliseconds.median == 45)
        #expect(cost.startupMilliseconds.median == 9)
        #expect(cost.peakRSSMegabytes == Spread([21, 20, 20]))
        #expect(cost.largeUploadWallSeconds.maximum == 16)
        #expect(cost.largeUploadContextSwitches.median == 1)
        // Unpaired runs or sizes that do not grow give no cost.
        #expect(UploadClientCost(startupSeconds: [0.01], small: [try Self.report(cpuMilliseconds: 1)], large: [],
                                 smallBytes: 4096, largeBytes: 512_000) == nil)
        #expect(UploadClientCost(startupSeconds: [0.01], small: [try Self.report(cpuMilliseconds: 1)],
                                 large: [try Self.report(cpuMilliseconds: 2)], smallBytes: 4096, largeBytes: 4096) == nil)
    }

    @Test func aDiscoveryTheClientNeedsIsAddedToItsFixedCostRunByRun() throws {
        let cost = try #require(UploadClientCost(
            startupSeconds: [0.003], small: [try Self.report(cpuMilliseconds: 5), try Self.report(cpuMilliseconds: 7)],
            large: [try Self.report(cpuMilliseconds: 50), try Self.report(cpuMilliseconds: 52)], smallBytes: 4096,
            largeBytes: 512_000, discoveries: [try Self.report(cpuMilliseconds: 6), try Self.report(cpuMilliseconds: 4)]))
        #expect(cost.fixedCostMilliseconds == Spread([5, 7]))
        #expect(cost.fixedCostWithDiscoveryMilliseconds == Spread([11, 11]))
        // A client that finds the device itself has no such figure; a discovery missing for a run gives no cost.
        #expect(UploadClientCost(startupSeconds: [0.003], small: [try Self.report(cpuMilliseconds: 5)],
                                 large: [try Self.report(cpuMilliseconds: 50)], smallBytes: 4096, largeBytes: 512_000)?
                    .fixedCostWithDiscoveryMilliseconds == nil)
        #expect(UploadClientCost(startupSeconds: [0.003], small: [try Self.report(cpuMilliseconds: 5), try Self.report(cpuMilliseconds: 7)],
                                 large: [try Self.report(cpuMilliseconds: 50), try Self.report(cpuMilliseconds: 52)], smallBytes: 4096,
                                 largeBytes: 512_000, discoveries: [try Self.report(cpuMilliseconds: 6)]) == nil)
    }

    @Test func theDiscoverysMarkedReportIsTakenApartFromTheUploads() throws {
        // What the figure's shell gives: the discovery's report (marked), then the client's output and its report.
        let output = """
            discovery: dfu-bench-rusage: status=0 wall_us=1004000 user_us=3000 sys_us=1500 maxrss_kb=4800 nvcsw=20 nivcsw=1
            Sending Init: OK
            dfu-bench-rusage: status=0 wall_us=300000 user_us=4000 sys_us=1000 maxrss_kb=5100 nvcsw=90 nivcsw=2
            """
        let (upload, discovery) = PeerClientFigure.separatingDiscovery(output)
        let uploadReport = try #require(ProcessUsageReport(parsing: upload))
        let discoveryReport = try #require(ProcessUsageReport(parsing: discovery))
        #expect(uploadReport.peakRSSKilobytes == 5100)
        #expect(discoveryReport.peakRSSKilobytes == 4800)
        #expect(abs(discoveryReport.cpuSeconds - 0.0045) < 1e-9)
        // Without a discovery the upload's output is left whole.
        #expect(PeerClientFigure.separatingDiscovery("dfu-bench-rusage: status=0").upload == "dfu-bench-rusage: status=0")
        #expect(PeerClientFigure.separatingDiscovery("dfu-bench-rusage: status=0").discovery.isEmpty)
    }

    @Test func theRatioIsDfuOverThePeer() {
        #expect(PeerClientFigure.ratio(253, 419) == "0.60×")
        #expect(PeerClientFigure.ratio(30, 10) == "3.00×")
        #expect(PeerClientFigure.ratio(30, nil) == "–")
        #expect(PeerClientFigure.ratio(30, 0) == "–")
    }

    static func cost(perMebibyte: Double, fixed: Double, startup: Double, rss: Double, discovery: Double? = nil) throws -> UploadClientCost {
        UploadClientCost(startupMilliseconds: try #require(Spread([startup])), fixedCostMilliseconds: try #require(Spread([fixed])),
                         cpuPerMebibyteMilliseconds: try #require(Spread([perMebibyte, perMebibyte - 10, perMebibyte + 5])),
                         peakRSSMegabytes: try #require(Spread([rss])), largeUploadWallSeconds: try #require(Spread([16.2])),
                         largeUploadContextSwitches: try #require(Spread([perMebibyte * 10])),
                         fixedCostWithDiscoveryMilliseconds: try discovery.map { try #require(Spread([fixed + $0])) })
    }

    /// The cells of the table row whose first cell starts with `name`, trimmed.
    static func cells(_ name: String, in text: String) -> [String]? {
        text.split(separator: "\n").map(String.init).first { $0.hasPrefix("| " + name) }.map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test func withoutThePeerItsColumnSaysItWasNotGiven() throws {
        var report = BenchReport(machine: BenchTableTests.machine)
        report.peerClient = PeerClientFigureResult(dfu: try Self.cost(perMebibyte: 253, fixed: 60, startup: 9, rss: 21.5),
                                                   peer: .notGiven, smallBytes: 4096, largeBytes: 512_000, device: "secure,sd_id=0xB7")
        let text = BenchTable(report: report).text
        #expect(text.contains("Figure 7: `dfu` and a peer client side by side"))
        #expect(Self.cells("", in: text) == ["", "`dfu upload`", "`--prn 0`", "`--no-acquire`", "`--no-acquire --prn 0`", "nrfdfu",
                                             "dfu/peer", "--prn 0/peer", "--no-acquire/peer", "--no-acquire --prn 0/peer"])
        #expect(Self.cells("CPU per MiB", in: text)?.dropFirst() == ["253 (243–258)", "–", "–", "–", "not given", "–", "–", "–", "–"])
        #expect(Self.cells("peak RSS", in: text)?.dropFirst() == ["21.5", "–", "–", "–", "not given", "–", "–", "–", "–"])
        #expect(text.contains("peer: not given (`make bench PEER_NRFDFU=/path/to/nrfdfu`"))
    }

    @Test func withThePeerEachRowGivesTheFourWaysOfDfuThePeerAndTheRatios() throws {
        var report = BenchReport(machine: BenchTableTests.machine)
        report.peerClient = PeerClientFigureResult(
            dfu: try Self.cost(perMebibyte: 253, fixed: 60, startup: 9, rss: 21.5),
            dfuWithoutPRN: try Self.cost(perMebibyte: 210, fixed: 59, startup: 9, rss: 21.4),
            dfuWriteValue: try Self.cost(perMebibyte: 838, fixed: 62, startup: 9, rss: 21.0),
            dfuWriteValueWithoutPRN: try Self.cost(perMebibyte: 419, fixed: 61, startup: 9, rss: 20.9),
            peer: .measured(path: "/work/peer/nrfdfu", cost: try Self.cost(perMebibyte: 419, fixed: 20, startup: 2, rss: 4.3, discovery: 10)),
            smallBytes: 4096, largeBytes: 512_000, device: "secure,sd_id=0xB7")
        let text = BenchTable(report: report).text
        // dfu scans by itself: its fixed cost is the same work as nrfdfu's with the scan it needs first.
        #expect(Self.cells("the same with the discovery", in: text)?.dropFirst()
                == ["60.0", "59.0", "62.0", "61.0", "30.0", "2.00×", "1.97×", "2.07×", "2.03×"])
        #expect(Self.cells("CPU per MiB", in: text)?.dropFirst()
                == ["253 (243–258)", "210 (200–215)", "838 (828–843)", "419 (409–424)", "419 (409–424)", "0.60×", "0.50×", "2.00×", "1.00×"])
        #expect(Self.cells("fixed cost", in: text)?.dropFirst()
                == ["60.0", "59.0", "62.0", "61.0", "20.0", "3.00×", "2.95×", "3.10×", "3.05×"])
        #expect(Self.cells("peak RSS", in: text)?.dropFirst() == ["21.5", "21.4", "21.0", "20.9", "4.3", "5.00×", "4.98×", "4.88×", "4.86×"])
        #expect(Self.cells("context switches", in: text)?.dropFirst()
                == ["2530", "2100", "8380", "4190", "4190", "0.60×", "0.50×", "2.00×", "1.00×"])
        #expect(text.contains("peer: nrfdfu at /work/peer/nrfdfu (packet receipt notifications off, as `--prn 0`;"))
    }

    @Test func aPeerThatFailedSaysWhy() throws {
        var report = BenchReport(machine: BenchTableTests.machine)
        report.peerClient = PeerClientFigureResult(
            dfu: try Self.cost(perMebibyte: 253, fixed: 60, startup: 9, rss: 21.5),
            peer: .failed(path: "/nowhere/nrfdfu", reason: "not an executable file"), smallBytes: 4096, largeBytes: 512_000,
            device: "secure,sd_id=0xB7")
        let text = BenchTable(report: report).text
        #expect(Self.cells("CPU per MiB", in: text)?.dropFirst() == ["253 (243–258)", "–", "–", "–", "failed", "–", "–", "–", "–"])
        #expect(text.contains("peer: nrfdfu at /nowhere/nrfdfu not measured: not an executable file"))
    }

    @Test func theShippedDfuIsAnOption() throws {
        #expect(try BenchOptions([]).shippedDfu == nil)
        #expect(try BenchOptions(["--shipped-dfu", ".build/static/release/dfu"]).shippedDfu == ".build/static/release/dfu")
        #expect(throws: BenchError.usage("--shipped-dfu needs the path of dfu")) { try BenchOptions(["--shipped-dfu"]) }
        // dfu-bench-rusage is looked for next to dfu-sim, whichever dfu is measured.
        let figure = PeerClientFigure(dfu: ".build/static/release/dfu", dfuSim: ".build/release/dfu-sim", peerNrfdfu: nil)
        #expect(figure.rusage == ".build/release/dfu-bench-rusage")
    }
}
