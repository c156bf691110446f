import DFUCommand
#if canImport(Glibc)
import Glibc
#endif

// A closed pipe (dfu inspect … | head) must not kill the process with SIGPIPE mid-write.
signal(SIGPIPE, SIG_IGN)
let environment = ProcessEnvironment.current()
let code = await DFUCommand.main(Array(CommandLine.arguments.dropFirst()), context: .standard(environment: environment))
exit(code.rawValue)
