@testable import DFUBenchmarks
import DFUSimulator
import Testing

@Suite struct BenchTableTests {
    static let machine = MachineInfo(cores: 2, cpuModel: "Test CPU", kernel: "6.0", swift: "Swift version 6.3.1",
                                     dfu: "0.1.0", bluez: "bluetoothd 5.66", date: "2026-01-01T00:00:00Z")

    @Test func theTableStatesTheMachineAndVersionsFirst() {
        let lines = BenchTable(report: BenchReport(machine: Self.machine)).text.split(separator: "\n")
        #expect(lines.first == "Machine: 2 cores, Test CPU; kernel 6.0")
        #expect(lines.dropFirst().first == "Versions: dfu 0.1.0; Swift version 6.3.1; bluetoothd 5.66")
    }

    @Test func aSkippedFigureSaysWhatItNeeds() {
        var report = BenchReport(machine: Self.machine)
        report.skipped = [.init(figure: "2", reason: "needs dfu-sim")]
        #expect(BenchTable(report: report).text.contains("Figure 2: not measured: needs dfu-sim"))
    }

    @Test func figureOneRowsAreSummarisedAgainstTheGoal() throws {
        var report = BenchReport(machine: Self.machine)
        let spread = try #require(Spread([10]))
        report.link = [0.99, 0.9].map { ratio in
            LinkFigureRow(kilobytes: 200, phy: "1M", connectionIntervalMilliseconds: 15, mtu: 247, prn: 0, seconds: spread,
                          boundSeconds: 10 * ratio, ratio: ratio, limitedBy: "link", lostPackets: 0, fellBack: false,
                          unpacedSeconds: 12, unpacedLostPackets: 3, better: nil, betterSeconds: nil, hostMilliseconds: spread)
        }
        let text = BenchTable(report: report).text
        #expect(text.contains("worst 0.900"))
        #expect(text.contains("rows ≥ 0.95: 1 of 2"))
        #expect(text.contains("| 200 KB | 1M  | 15.0  | 247 | 0   | 10.000   | 9.900   | 0.990"))
    }

    @Test(arguments: [1, 4, 16])
    func aSharedAdapterGivesEveryConnectionItsShareOfTheAirAndAtLeastOnePacket(_ devices: Int) {
        let single = LinkModel()
        let link = ScaleFigure.link(devices: devices, sharedAdapter: true)
        let packet = single.exchangeTime(attPayload: single.maximumWriteLength)
        #expect(link.usableEventLength >= packet)
        // N connections never use more air per interval than one would alone.
        #expect(link.usableEventLength * devices <= link.connectionInterval - .microseconds(1250)
                || devices == 1)
        #expect(ScaleFigure.link(devices: devices, sharedAdapter: false) == single)
    }
}
