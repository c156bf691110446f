import BlueZTransport
import DFUCore
import DFUSimStandIn
import DFUSimulator
import Glibc
import TestSupport
import Testing
import DFUFormats

/// Descriptors and child processes do not pile up over many uploads in one process.
///
/// The counts cover the whole test process, where other suites may run at the same time, so a
/// small slack is allowed; a leak per upload (50 of them) would exceed it by far.
@Suite(.serialized, .timeLimit(.minutes(TestTime.limitMinutes(2)))) struct BlueZTransportResourceTests {
    static let slack = 6

    /// The number of open descriptors of this process.
    static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return -1 }
        defer { closedir(directory) }
        var count = 0
        while readdir(directory) != nil { count += 1 }
        return count
    }

    /// The number of child processes of this process that are still around (zombies included).
    static func childProcesses() -> Int {
        guard let directory = opendir("/proc") else { return -1 }
        defer { closedir(directory) }
        let me = getpid()
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = Int32(name), let file = fopen("/proc/\(pid)/stat", "r") else { continue }
            defer { fclose(file) }
            var line = [CChar](repeating: 0, count: 512)
            guard fgets(&line, 512, file) != nil else { continue }
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // pid (comm) state ppid ...: the parent id is the second field after the closing parenthesis.
            guard let close = text.lastIndex(of: ")") else { continue }
            let fields = text[text.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == me { count += 1 }
        }
        return count
    }

    @Test func fiftyUploadsLeaveNoDescriptorsOrChildrenBehind() async throws {
        // A buttonless application: every round switches it to its bootloader and back.
        try await StandInRig.with([LiveRig.secureDevice(buttonless: .withoutBonds)]) { try await Self.uploadFiftyTimes($0) }
    }

    private static func uploadFiftyTimes(_ rig: StandInRig) async throws {
        let package = LiveRig.securePackage(size: 2_000)
        // One warm-up run: libdbus and Dispatch allocate lasting descriptors (epoll, eventfd) once.
        for round in 0...50 {
            if round == 1 {
                try await Task.sleep(for: .milliseconds(100))
            }
            let transport = try await BlueZTransport.open(busAddress: rig.address)
            _ = try await LiveRig.update(package, over: transport).get()
            await transport.close()
            if round == 0 {
                try await Task.sleep(for: .milliseconds(100))
                Baseline.descriptors = openDescriptors()
                Baseline.children = childProcesses()
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        let (descriptors, children) = (openDescriptors(), childProcesses())
        #expect(descriptors - Baseline.descriptors <= slack, "\(Baseline.descriptors) → \(descriptors)")
        #expect(children - Baseline.children <= slack, "\(Baseline.children) → \(children)")
        #expect(try await rig.storage.application == package.parts.first?.image)
    }
}

/// The counts after the warm-up run.
private enum Baseline {
    nonisolated(unsafe) static var descriptors = 0
    nonisolated(unsafe) static var children = 0
}
