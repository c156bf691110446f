import Foundation

/// Counts of this process's open file descriptors and threads, read from `/proc/self`.
struct ProcessResources: Equatable, CustomStringConvertible {
    let openFileDescriptors: Int
    let threads: Int

    static func current() -> ProcessResources {
        let manager = FileManager.default
        let descriptors = (try? manager.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        let threads = (try? manager.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
        return ProcessResources(openFileDescriptors: descriptors, threads: threads)
    }

    var description: String { "\(openFileDescriptors) fds, \(threads) threads" }
}
