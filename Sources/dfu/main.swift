import DFUCommand
#if canImport(Glibc)
import Glibc
#endif

// A closed pipe (dfu inspect … | head) must not kill the process with SIGPIPE mid-write.
signal(SIGPIPE, SIG_IGN)
let environment = ProcessEnvironment.current()
var context = CommandContext.bluez(environment: environment)
// Developer mode: simulated devices instead of BlueZ (see SimulatedDevices).
if let simulated = SimulatedDevices.provider(environment: environment) {
    context.transports = simulated
    context.locksDevices = false
}
// Ctrl-C and SIGTERM cancel uploads cleanly (Abort, disconnect, release); a second one exits at once.
let signals = SignalInterrupts(controller: context.interrupts)
let code = await DFUCommand.main(Array(CommandLine.arguments.dropFirst()), context: context)
withExtendedLifetime(signals) {}
exit(code.rawValue)
