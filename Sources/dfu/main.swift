import DFUCommand
import SystemSupport

// A closed pipe (dfu inspect … | head) must not kill the process with SIGPIPE mid-write.
CurrentProcess.ignore(.brokenPipe)
let environment = CurrentProcess.environment
let context = CommandContext.bluez(environment: environment)
// Ctrl-C and SIGTERM cancel uploads cleanly (Abort, disconnect, release); a second one exits at once.
let signals = SignalInterrupts(controller: context.interrupts)
let code = await DFUCommand.main(Array(CommandLine.arguments.dropFirst()), context: context)
withExtendedLifetime(signals) {}
CurrentProcess.exit(code.rawValue)
