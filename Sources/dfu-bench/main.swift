import DFUBenchmarks
import SystemSupport

CurrentProcess.exit(await BenchCommand.main(Array(CommandLine.arguments.dropFirst())))
