import BlueZPeripheral
#if canImport(Glibc)
import Glibc
#endif

// Temporary executable: `dfu-sim-peripheral ARGS` is `dfu-sim peripheral ARGS` until the
// `dfu-sim` executable exists and takes the subcommand.
signal(SIGPIPE, SIG_IGN)
var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "peripheral" { arguments.removeFirst() }
exit(await PeripheralCommand.run(arguments: arguments))
