import DBus
import Foundation
import Testing

extension LiveBusTests {
    /// Measurements, not assertions: run by hand with `DFU_DBUS_BENCHMARK=1 swift test --filter BenchmarkTests`.
    @Suite(.enabled(if: ProcessInfo.processInfo.environment["DFU_DBUS_BENCHMARK"] != nil))
    struct BenchmarkTests {
        @Test func printsRoundTripLatencyAndThroughputOfSmallCalls() async throws {
            try await withLiveBus { live in
                let interface = try InterfaceName("test.Bench")
                let path = try ObjectPath("/bench")
                let member = try MemberName("Echo")
                try live.server.export(
                    [
                        DBusInterface(
                            interface,
                            methods: [
                                DBusMethod(member, inputs: [DBusArgument("n", "u")], outputs: [DBusArgument("n", "u")])
                                { call in
                                    call.arguments
                                }
                            ])
                    ], at: path)
                let destination = live.server.uniqueName
                func echo(_ index: Int) async throws {
                    _ = try await live.client.call(
                        destination: destination, path: path, interface: interface, member: member,
                        arguments: [.uint32(UInt32(index))])
                }
                for index in 0..<200 { try await echo(index) }

                var samples: [Duration] = []
                for index in 0..<1000 {
                    let start = ContinuousClock.now
                    try await echo(index)
                    samples.append(ContinuousClock.now - start)
                }
                samples.sort()
                func microseconds(_ duration: Duration) -> Int {
                    Int(duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000)
                }
                print(
                    "D-Bus round trip over a private dbus-daemon (1000 sequential calls): "
                        + "median \(microseconds(samples[500])) µs, p99 \(microseconds(samples[990])) µs")

                let sequentialStart = ContinuousClock.now
                for index in 0..<10_000 { try await echo(index) }
                let sequential = ContinuousClock.now - sequentialStart
                print(
                    "10k sequential small calls: \(microseconds(sequential) / 1000) ms, \(10_000_000_000 / max(1, microseconds(sequential))) calls/s"
                )

                let parallelStart = ContinuousClock.now
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for worker in 0..<16 {
                        group.addTask {
                            for index in stride(from: worker, to: 10_000, by: 16) { try await echo(index) }
                        }
                    }
                    try await group.waitForAll()
                }
                let parallel = ContinuousClock.now - parallelStart
                print(
                    "10k small calls from 16 concurrent tasks: \(microseconds(parallel) / 1000) ms, \(10_000_000_000 / max(1, microseconds(parallel))) calls/s"
                )
            }
        }
    }
}
