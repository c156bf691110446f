import ProcessSpawning
import SystemSupport

/// A child process started with `posix_spawn` and reaped with `wait4` (``SpawnedProcess``), so its own CPU time and
/// peak RSS are known exactly (not mixed with other children's).
public struct ChildProcess: Sendable {
    /// What a finished child used.
    public struct Usage: Sendable, Hashable, Codable {
        /// Exit status (or 128 + signal).
        public var status: Int32
        /// Wall time from spawn to reap, seconds.
        public var wallSeconds: Double
        /// User CPU time, seconds.
        public var userSeconds: Double
        /// System CPU time, seconds.
        public var systemSeconds: Double
        /// `ru_maxrss`, MB (2^20 bytes). After `posix_spawn` it includes the parent's own high-water mark at
        /// the spawn (Linux keeps it across `execve`), so it is only an upper bound of the child's.
        public var maximumRSSUpperBoundMegabytes: Double

        /// User plus system CPU time.
        public var cpuSeconds: Double { userSeconds + systemSeconds }
    }

    /// The path of the running executable (`/proc/self/exe`).
    public static var currentExecutable: String? {
        CurrentProcess.executablePath
    }

    /// Runs `arguments[0]` (a path) with the rest as arguments, inheriting stdout and stderr, and waits.
    public static func run(_ arguments: [String]) throws(BenchError) -> Usage {
        let started = ContinuousClock.now
        let child: SpawnedProcess
        do throws(SpawnError) {
            child = try SpawnedProcess(arguments)
        } catch {
            throw .child(error.description)
        }
        guard let exit = child.waitForExit() else { throw .child("wait4: \(arguments[0]) cannot be waited for") }
        let wall = started.duration(to: ContinuousClock.now)
        return Usage(status: exit.status,
                     wallSeconds: Double(wall.components.seconds) + Double(wall.components.attoseconds) * 1e-18,
                     userSeconds: exit.usage.userSeconds, systemSeconds: exit.usage.systemSeconds,
                     maximumRSSUpperBoundMegabytes: Double(exit.usage.maximumResidentKiB) / 1024)
    }
}
