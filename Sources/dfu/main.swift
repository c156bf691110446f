import DFUCommand
import IOLoop
import SystemSupport

// A closed pipe (dfu inspect … | head) must not kill the process with SIGPIPE mid-write.
CurrentProcess.ignore(.brokenPipe)
let context = CommandContext.bluez(environment: CurrentProcess.environment)
let arguments = Array(CommandLine.arguments.dropFirst())
// The whole command runs on this thread: its tasks, the D-Bus socket, timers and signals wait on one event loop.
do {
    try EventLoop.runShared(onCurrentThread: { [context, arguments] loop in
        var context = context
        context.executor = loop
        // Ctrl-C and SIGTERM cancel uploads cleanly (Abort, disconnect, release); a second one exits at once.
        do {
            try loop.onFirstInterruptSignal { [interrupts = context.interrupts] in interrupts.interrupt() }
        } catch {
            context.writeError("dfu: cannot handle Ctrl-C: \(error)\n")
            return ExitCode.systemError.rawValue
        }
        return await DFUCommand.main(arguments, context: context).rawValue
    })
} catch {
    context.writeError("dfu: cannot start its event loop: \(error)\n")
    CurrentProcess.exit(ExitCode.systemError.rawValue)
}
