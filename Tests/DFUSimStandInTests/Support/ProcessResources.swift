import Foundation

/// Counts of this process's open file descriptors, threads and child processes, read from `/proc/self`.
struct ProcessResources: Equatable, CustomStringConvertible {
    let openFileDescriptors: Int
    let threads: Int
    let children: Int

    static func current() -> ProcessResources {
        let manager = FileManager.default
        let descriptors = (try? manager.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        let tasks = (try? manager.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var children = 0
        for task in tasks {
            let text = (try? String(contentsOfFile: "/proc/self/task/\(task)/children", encoding: .utf8)) ?? ""
            children += text.split(separator: " ").count
        }
        return ProcessResources(openFileDescriptors: descriptors, threads: tasks.count, children: children)
    }

    var description: String { "\(openFileDescriptors) fds, \(threads) threads, \(children) children" }
}
