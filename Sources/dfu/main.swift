import DFUCommand
#if canImport(Glibc)
import Glibc
#endif

// A closed pipe (dfu inspect … | head) must not kill the process with SIGPIPE mid-write.
signal(SIGPIPE, SIG_IGN)
let environment = ProcessEnvironment.current()
let context = CommandContext.bluez(environment: environment)
// Ctrl-C and SIGTERM cancel uploads cleanly (Abort, disconnect, release); a second one exits at once.
let signals = SignalInterrupts(controller: context.interrupts)
let code = await DFUCommand.main(Array(CommandLine.arguments.dropFirst()), context: context)
withExtendedLifetime(signals) {}
exit(code.rawValue)
