@testable import DFUSimCommand
import DFUSimPeripheral
import DFUSimStandIn
import DFUSimulator
import Testing

@Suite struct PeripheralCommandTests {
    @Test func fullCommandLineIsRead() throws {
        let configuration = try #require(
            try PeripheralCommand.parse([
                "--adapter", "hci1", "--bootloader-adapter", "hci2", "--device", "buttonless,name=Sensor",
                "--report", "/tmp/r.json", "--no-acquire-write", "--acquire-notify", "--disconnect-after-bytes", "2000", "--readvertise-ms", "1500",
                "--accept-pairing",
            ]))
        #expect(configuration.adapter == "hci1")
        #expect(configuration.bootloaderAdapter == "hci2")
        #expect(configuration.device.kind == .buttonless)
        #expect(configuration.device.profile.applicationFirmware.advertisedName == "Sensor")
        #expect(configuration.reportPath == "/tmp/r.json")
        #expect(!configuration.acquireWrite)
        #expect(configuration.acquireNotify)
        #expect(configuration.disconnectAfterPacketBytes == 2000)
        #expect(configuration.readvertiseInterval == .milliseconds(1500))
        #expect(configuration.acceptsPairing)
    }

    @Test func defaultsOfferAcquireWriteButNotAcquireNotify() throws {
        let configuration = try #require(try PeripheralCommand.parse(["--adapter", "hci0", "--device", "secure"]))
        #expect(configuration.acquireWrite)
        #expect(!configuration.acquireNotify)
        #expect(configuration.bootloaderAdapter == nil)
        #expect(configuration.reportPath == nil)
        #expect(configuration.disconnectAfterPacketBytes == nil)
        #expect(configuration.readvertiseInterval == nil)
        #expect(!configuration.acceptsPairing)
    }

    @Test func helpIsNotAConfiguration() throws {
        #expect(try PeripheralCommand.parse(["--help"]) == nil)
    }

    @Test(arguments: [
        (["--device", "secure"], "--adapter is required"),
        (["--adapter", "hci1"], "--device is required"),
        (["--adapter", "usb0", "--device", "secure"], "named hciN"),
        (["--adapter", "hci1", "--device"], "needs a value"),
        (["--adapter", "hci1", "--device", "secure", "--bootloader-adapter", "hci1"], "must differ"),
        (["--adapter", "hci1", "--device", "secure", "--fast"], "unknown option --fast"),
        (["--adapter", "hci1", "--device", "secure", "--disconnect-after-bytes", "0"], "positive number"),
        (["--adapter", "hci1", "--device", "secure", "--readvertise-ms", "10"], "at least 100"),
    ])
    func badCommandLinesAreUsageErrors(_ arguments: [String], _ reason: String) {
        #expect {
            _ = try PeripheralCommand.parse(arguments)
        } throws: { error in
            guard case PeripheralError.usage(let message) = error else { return false }
            return message.contains(reason)
        }
    }

    @Test func badDeviceSpecIsReportedWithTheStandInsReason() {
        #expect {
            _ = try PeripheralCommand.parse(["--adapter", "hci1", "--device", "nrf52"])
        } throws: { error in
            guard case PeripheralError.badDeviceSpec(let message) = error else { return false }
            return message.contains("unknown device kind")
        }
    }

    @Test func usageErrorExitsWith64() async {
        #expect(await PeripheralCommand.run(arguments: ["--adapter", "hci1"]) == 64)
    }
}
