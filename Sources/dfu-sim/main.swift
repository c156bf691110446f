import BlueZPeripheral
import BlueZStandIn
#if canImport(Glibc)
import Glibc
#endif

// `dfu-sim peripheral` serves a real bluetoothd and handles its own signals.
if CommandLine.arguments.dropFirst().first == "peripheral" {
    signal(SIGPIPE, SIG_IGN)
    exit(await PeripheralCommand.run(arguments: Array(CommandLine.arguments.dropFirst(2))))
}
// Signals are taken with sigtimedwait, so they must be blocked before any thread starts.
DFUSim.blockTerminationSignals()
exit(await DFUSim.main(Array(CommandLine.arguments.dropFirst())))
