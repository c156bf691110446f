import DFUSimCommand
import SystemSupport

// `dfu-sim peripheral` serves a real bluetoothd and handles its own signals.
if CommandLine.arguments.dropFirst().first == "peripheral" {
    CurrentProcess.ignore(.brokenPipe)
    CurrentProcess.exit(await PeripheralCommand.run(arguments: Array(CommandLine.arguments.dropFirst(2))))
}
// `dfu-sim image` writes a synthetic image and its init packet, then exits.
if CommandLine.arguments.dropFirst().first == "image" {
    CurrentProcess.exit(SyntheticImageCommand.run(arguments: Array(CommandLine.arguments.dropFirst(2))))
}
// SIGINT and SIGTERM stop the command and everything dfu-sim started, then dfu-sim exits.
DFUSim.installSignalHandlers()
CurrentProcess.exit(await DFUSim.main(Array(CommandLine.arguments.dropFirst())))
