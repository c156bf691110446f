import DFUCore
import Testing
import DFUFormats

/// What the result line and `--json` call an update that succeeded: "updated" only when the device runs
/// what it was sent (`DFUUpdateReport.isUpdated`), otherwise "uploaded".
@Suite struct UpdateReportVerdictTests {
    @Test func aFinishedNRF5UpdateIsUpdated() {
        var report = DFUUpdateReport()
        report.partsSent = [.application]
        #expect(report.isUpdated)
    }

    @Test func anSMPUpdateIsUpdatedOnlyWhenEveryImageRunsConfirmed() {
        var report = DFUUpdateReport()
        report.smpImages = [SMPImageReport(image: 1, state: .confirmed), SMPImageReport(image: 0, state: .confirmed)]
        #expect(report.isUpdated)
    }

    @Test(arguments: [SMPImageState.notUploaded, .uploaded, .markedTest, .markedConfirm, .resetTest, .resetConfirm, .runningTest])
    func anSMPImageThatDoesNotYetRunConfirmedLeavesTheDeviceOnlyUploaded(_ state: SMPImageState) {
        var report = DFUUpdateReport()
        report.smpImages = [SMPImageReport(image: 1, state: .confirmed), SMPImageReport(image: 0, state: state)]
        #expect(!report.isUpdated)
    }
}
