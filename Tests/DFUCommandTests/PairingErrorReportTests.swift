@testable import DFUCommand
import DFUCore
import Testing

/// A device that needs an encrypted link and could not be paired: one sentence naming it, the cause and
/// what to try, and exit code 1 (the device refused), whichever step the pairing was needed at.
@Suite struct PairingErrorReportTests {
    static let sentence = "pairing with C0:FF:EE:00:12:FF failed: Authentication Failed; check the passkey given with --passkey"

    @Test(arguments: [DFUStep.enablingNotifications, .smp(.upload)])
    func aFailedPairingExitsOneWithItsSentence(step: DFUStep) {
        let (code, message) = ErrorReport.classify(DFUError.transport(step: step, .pairingFailed(Self.sentence)))
        #expect(code == .deviceRejected)
        #expect(message == Self.sentence)
    }
}
