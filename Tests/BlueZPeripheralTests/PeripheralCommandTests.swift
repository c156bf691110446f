import BlueZPeripheral
import Testing

@Suite struct PeripheralCommandTests {
    @Test func fullCommandLineIsRead() throws {
        let configuration = try #require(
            try PeripheralCommand.parse([
                "--adapter", "hci1", "--bootloader-adapter", "hci2", "--device", "buttonless,name=DfuX",
                "--report", "/tmp/r.json", "--no-acquire-write", "--acquire-notify",
            ]))
        #expect(configuration.adapter == "hci1")
        #expect(configuration.bootloaderAdapter == "hci2")
        #expect(configuration.device.kind == .buttonless)
        #expect(configuration.device.bootloaderName == "DfuX")
        #expect(configuration.reportPath == "/tmp/r.json")
        #expect(!configuration.acquireWrite)
        #expect(configuration.acquireNotify)
    }

    @Test func defaultsOfferAcquireWriteButNotAcquireNotify() throws {
        let configuration = try #require(try PeripheralCommand.parse(["--adapter", "hci0", "--device", "secure"]))
        #expect(configuration.acquireWrite)
        #expect(!configuration.acquireNotify)
        #expect(configuration.bootloaderAdapter == nil)
        #expect(configuration.reportPath == nil)
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
    ])
    func badCommandLinesAreUsageErrors(_ arguments: [String], _ reason: String) {
        #expect {
            _ = try PeripheralCommand.parse(arguments)
        } throws: { error in
            guard case PeripheralError.usage(let message) = error else { return false }
            return message.contains(reason)
        }
    }

    @Test func usageErrorExitsWith64() async {
        #expect(await PeripheralCommand.run(arguments: ["--adapter", "hci1"]) == 64)
    }
}
