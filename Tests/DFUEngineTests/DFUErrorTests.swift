import DFUCore
import Testing
import DFUFormats

@Suite struct DFUErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let error: DFUError
        let sentence: String
        var testDescription: String { sentence }
    }

    @Test(arguments: [
        Case(error: .remote(step: .executingInitPacket, request: "the init packet", status: .secure(.extendedError, .softDeviceVersionFailure)),
             sentence: "the bootloader rejected the init packet: the installed SoftDevice is not in the package's sd_req list (extended error 0x07); rebuild the package with the installed SoftDevice's id in its sd_req (nrfutil pkg generate --sd-req)"),
        Case(error: .remote(step: .executingDataObject, request: "Execute", status: .secure(.operationNotPermitted, nil)),
             sentence: "the device refused Execute while executing a data object: operation not permitted (0x08); power-cycle the device or retry with --no-resume"),
        Case(error: .remote(step: .startingDFU, request: "Start DFU", status: .legacy(.notSupported)),
             sentence: "the device refused Start DFU while starting DFU: not supported (status 3); the bootloader does not support this image type"),
        Case(error: .timeout(step: .verifying(.data), after: .milliseconds(2500)),
             sentence: "no answer from the device within 2.5 s while verifying the data object's checksum; check that it is in range and still in DFU mode, or raise the timeout"),
        Case(error: .disconnected(step: .sendingFirmware, attempts: 4),
             sentence: "the device disconnected while sending the firmware and could not be reconnected (4 attempts); move closer and retry, the upload resumes where it stopped"),
        Case(error: .crcMismatch(step: .verifying(.data), object: "data object 2 of 3 (bytes 4096..<8192)", expectedOffset: 8192,
                                 reportedOffset: 7948, expectedCRC: 0x1234_5678, reportedCRC: 0xABCD_EF01, attempts: 3),
             sentence: "the checksum of the data object 2 of 3 (bytes 4096..<8192) did not match after 3 attempts while verifying the data object's checksum (sent 8192 bytes with CRC 0x12345678, device reports 7948 bytes with CRC 0xabcdef01); the link is losing data, retry with a lower --prn or a smaller packet size"),
        Case(error: .bootloaderNotFound(selector: DFUDeviceSelector(addresses: [DFUDeviceAddress("AA:BB:CC:DD:EE:00")].compactMap { $0 }, name: "Dfu12345"), after: .seconds(10)),
             sentence: "the bootloader (address AA:BB:CC:DD:EE:00, name Dfu12345) did not appear within 10 s; give its address or name with --bootloader-address/--bootloader-name, or raise the scan timeout"),
        Case(error: .protocolMismatch(package: .secure, device: .legacy),
             sentence: "the package is for secure DFU but the device runs a legacy DFU bootloader; use a package built for it"),
        Case(error: .transport(step: .enablingNotifications, .attError(0x0A)),
             sentence: "the Bluetooth link failed while enabling notifications: ATT error 0x0a"),
        Case(error: .aborted(step: .sendingFirmware),
             sentence: "the update was cancelled while sending the firmware; the device stays in its bootloader until it times out, run the update again to finish"),
    ])
    func rendersOneHelpfulSentence(_ testCase: Case) {
        #expect(testCase.error.description == testCase.sentence)
    }

    /// A command that uploads nothing (`dfu images`, `confirm`, `reset`, `erase`) promises no upload that resumes.
    @Test func aLostLinkOfACommandThatUploadsNothingPromisesNoResumedUpload() {
        let sentence = DFUError.disconnected(step: .enablingNotifications, attempts: 1).description(uploading: false)
        #expect(sentence == "the device disconnected while enabling notifications and could not be reconnected (1 attempt); move closer and retry")
    }

    @Test func onlyInitPacketRejectionsLetMultiPartUploadsSkipAhead() {
        #expect(DFUError.remote(step: .executingInitPacket, request: "", status: .secure(.invalidObject, nil)).isInitPacketRejection)
        #expect(DFUError.remote(step: .sendingInitParameters, request: "", status: .legacy(.operationFailed)).isInitPacketRejection)
        #expect(!DFUError.remote(step: .validatingFirmware, request: "", status: .secure(.extendedError, .verificationFailed)).isInitPacketRejection)
        #expect(!DFUError.timeout(step: .executingInitPacket, after: .seconds(1)).isInitPacketRejection)
    }
}
