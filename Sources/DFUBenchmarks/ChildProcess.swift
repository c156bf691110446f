import Glibc
import SimulatorSupport

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
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Runs `arguments[0]` (a path) with the rest as arguments, inheriting stdout and stderr, and waits.
    public static func run(_ arguments: [String]) throws(BenchError) -> Usage {
        let started = ContinuousClock.now
        let child: SpawnedProcess
        do {
            child = try SpawnedProcess(arguments)
        } catch {
            throw .child(error.description)
        }
        guard let (exit, usage) = child.waitForExit() else { throw .child("wait4: \(String(cString: strerror(errno)))") }
        let wall = started.duration(to: ContinuousClock.now)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return Usage(status: exit,
                     wallSeconds: Double(wall.components.seconds) + Double(wall.components.attoseconds) * 1e-18,
                     userSeconds: seconds(usage.ru_utime), systemSeconds: seconds(usage.ru_stime),
                     maximumRSSUpperBoundMegabytes: Double(usage.ru_maxrss) / 1024)
    }
}
