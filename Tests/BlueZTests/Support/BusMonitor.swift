import Foundation
import Glibc
import ProcessSpawning
import SystemSupport

/// `dbus-monitor` on a test's bus: an observer outside this process that sees the method calls clients send to
/// org.bluez (it asks the bus to make it a monitor, `BecomeMonitor`), which a client connection of the test cannot.
/// Its output is read as lines, in the bus's order, by a thread of its own (blocking reads).
final class BusMonitor {
    static let executable = "/usr/bin/dbus-monitor"

    private let child: SpawnedProcess
    private var lines: AsyncStream<String>.AsyncIterator

    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `dbus-monitor` on the bus at `address` with `rules` (match rules) and returns once it monitors: the bus
    /// takes its name away as it makes it a monitor, and `NameLost` is the last thing it hears as a client.
    init(address: String, rules: [String]) async throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw StartError(description: "pipe failed") }
        // Only the child gets the write end, as its output (dup2 clears the flag there).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var options = SpawnedProcess.Options()
        // SIGTERM as a process starts by default: the test process's own mask and dispositions would be inherited
        // (with them, dbus-monitor ignored the SIGTERM that stops it).
        options.defaultSignals = [.terminate]
        options.descriptors = [
            (FileDescriptor(rawValue: ends[1]), .standardOutput), (FileDescriptor(rawValue: ends[1]), .standardError),
        ]
        do {
            child = try SpawnedProcess([Self.executable, "--address", address] + rules, options: options)
        } catch {
            close(ends[0])
            close(ends[1])
            throw StartError(description: "cannot start dbus-monitor: \(error)")
        }
        close(ends[1])
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        lines = stream.makeAsyncIterator()
        let readEnd = ends[0]
        Thread {
            var buffer: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                buffer.append(contentsOf: chunk[..<count])
                while let end = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: buffer[..<end], as: UTF8.self))
                    buffer.removeSubrange(...end)
                }
            }
            close(readEnd)
            continuation.finish()
        }.start()
        _ = await lines(through: { $0.contains("member=NameLost") })
    }

    /// The lines up to and including the first that `last` accepts; all of them when the output ends first.
    func lines(through last: (String) -> Bool) async -> [String] {
        var taken: [String] = []
        while let line = await lines.next() {
            taken.append(line)
            if last(line) { break }
        }
        return taken
    }

    /// Ends dbus-monitor (its output ends with it).
    func stop() {
        child.send(.terminate)
        _ = child.waitForExit()
    }
}
