@testable import DFUBenchmarks
import Testing

@Suite struct SMPClientsFigureTests {
    @Test func dfusProgressEventsGiveTheAcknowledgedBytes() {
        let reader = SMPClientsFigure.AnswerReader.dfuJSON
        // docs/cli.md, JSON events: a progress event per answer the device gave.
        #expect(reader.acknowledged(#"{"bytes":4864,"device":"C0:FF:EE:00:00:10","elapsed":0.41,"event":"progress","part":1,"parts":1,"total":200552}"#)
                == 4864)
        #expect(reader.acknowledged(#"{"device":"C0:FF:EE:00:00:10","event":"state","part":1,"parts":1,"state":"uploading"}"#) == nil)
        #expect(reader.acknowledged("dfu-bench-rusage: status=0 wall_us=1") == nil)
    }

    @Test func smpmgrsLogLinesGiveTheOffsetTheTargetAnswered() {
        let reader = SMPClientsFigure.AnswerReader.smpmgrLog
        // smpmgr image_management.py upload_with_progress_bar(): logger.info(f"Upload {offset=}") through rich's handler.
        #expect(reader.acknowledged("[22:04:31] INFO     Upload offset=2417 - image_management:213      image_management.py:213") == 2417)
        #expect(reader.acknowledged("           INFO     Upload complete - __init__:350") == nil)
    }

    @Test func theTableComparesDfuWithSmpmgrTheBoundAndTheNRF5Path() throws {
        func row(_ client: String, rate: Double, beyond: Double) throws -> SMPClientsRow {
            let one = try #require(Spread([1]))
            return SMPClientsRow(client: client, bytes: 200_552, wallSeconds: one, transferSeconds: one,
                                 transferBytesPerSecond: try #require(Spread([rate])), cpuSeconds: one,
                                 cpuBeyondStartupSecondsPerMebibyte: try #require(Spread([beyond])), peakRSSMegabytes: one)
        }
        var report = BenchReport(machine: BenchTableTests.machine)
        report.smpClients = SMPClientsFigureResult(
            rows: [try row(SMPClientsFigure.dfuSMP, rate: 84_000, beyond: 0.2), try row(SMPClientsFigure.smpmgrSMP, rate: 40_000, beyond: 1.7),
                   try row(SMPClientsFigure.dfuSecure, rate: 30_000, beyond: 0.3)],
            notMeasured: ["other": "exited with 64:\nunknown option"], boundSeconds: 2.1, boundLimitedBy: "flash", imageBytes: 210_000,
            link: "smp_paced=yes")
        let text = BenchTable(report: report).text
        #expect(text.contains("Figure 6: SMP through dfu-sim"))
        #expect(text.contains("dfu ≥ 2× smpmgr's transfer rate: 2.10×"))
        // 84 kB/s against the bound's 210000 B / 2.1 s = 100 kB/s.
        #expect(text.contains("dfu within 10 % of the bound: 84.0 % of its rate"))
        #expect(text.contains("SMP 0.200 vs nRF5 0.300 s/MiB"))
        #expect(text.contains("not measured: other: exited with 64: unknown option"))
    }
}
