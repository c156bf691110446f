import Foundation

/// Reads a child's output to its end, line by line, each line stamped with the moment its bytes were
/// read: the figures time events by when the child printed them.
enum StampedLineReader {
    /// Calls `each` with every whole line of `handle` (without its newline) and its arrival time;
    /// returns all the lines read, each ended by a newline.
    static func read(_ handle: FileHandle, _ each: (String, ContinuousClock.Instant) -> Void) -> String {
        var text = ""
        var pending = ""
        while true {
            let data = handle.availableData
            if data.isEmpty { break }
            let now = ContinuousClock.now
            pending += String(decoding: data, as: UTF8.self)
            while let newline = pending.firstIndex(of: "\n") {
                let line = String(pending[..<newline])
                pending.removeSubrange(...newline)
                text += line + "\n"
                each(line, now)
            }
        }
        return text
    }
}
