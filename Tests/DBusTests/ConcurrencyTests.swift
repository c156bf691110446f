import DBus
import Synchronization
import TestSupport
import Testing

extension LiveBusTests {
    @Suite struct ConcurrencyTests {
        /// Exports `test.Slow.Stall`, which opens `started` when a call arrives and answers
        /// only after `gate` opens.
        func exportStall(on connection: DBusConnection, gate: Gate, started: Gate = Gate()) throws {
            try connection.export(
                [
                    DBusInterface(
                        try InterfaceName("test.Slow"),
                        methods: [
                            DBusMethod(try MemberName("Stall"), runsConcurrently: true) { _ in
                                started.open()
                                await gate.wait()
                                return []
                            }
                        ])
                ], at: try ObjectPath("/slow"))
        }

        func callStall(_ live: LiveBus, timeout: Duration = .seconds(25)) async throws {
            _ = try await live.client.call(
                destination: live.server.uniqueName, path: try ObjectPath("/slow"),
                interface: try InterfaceName("test.Slow"), member: try MemberName("Stall"), timeout: timeout)
        }

        @Test func aCallWithoutReplyTimesOutAfterItsTimeout() async throws {
            try await withLiveBus { live in
                let gate = Gate()
                defer { gate.open() }
                try exportStall(on: live.server, gate: gate)
                let started = ContinuousClock.now
                let error = await expectDBusError(.timedOut) {
                    try await callStall(live, timeout: .milliseconds(200))
                }
                let elapsed = ContinuousClock.now - started
                #expect(elapsed >= .milliseconds(200))
                #expect(elapsed < TestTime.scaled(.seconds(5)))
                #expect(error?.message.contains("test.Slow.Stall") == true)
                // The connection still works afterwards, and a late reply is ignored.
                gate.open()
                #expect(try await live.client.nameOwner(of: live.server.uniqueName) == live.server.uniqueName)
            }
        }

        @Test func shortTimeoutFiresWhileALongerCallIsPending() async throws {
            try await withLiveBus { live in
                let gate = Gate()
                defer { gate.open() }
                try exportStall(on: live.server, gate: gate)
                async let long: Void = callStall(live, timeout: .seconds(20))
                await expectDBusError(.timedOut) {
                    try await callStall(live, timeout: .milliseconds(100))
                }
                gate.open()
                try await long
            }
        }

        @Test func cancellingTheCallingTaskEndsTheCallWithCancelled() async throws {
            try await withLiveBus { live in
                let gate = Gate()
                defer { gate.open() }
                let started = Gate()
                try exportStall(on: live.server, gate: gate, started: started)
                let task = Task { try await callStall(live) }
                await started.wait()
                task.cancel()
                let result = await task.result
                guard case .failure(let error as DBusError) = result else {
                    Issue.record("expected a cancelled DBusError, got \(result)")
                    return
                }
                #expect(error.code == .cancelled)
            }
        }

        @Test func handlerCanCallBackIntoTheCallerWhileTheCallerWaits() async throws {
            // The RegisterApplication pattern: the callee calls the caller before replying.
            try await withLiveBus { live in
                let clientInterface = try InterfaceName("test.Application")
                live.client.addObjectManager(at: try ObjectPath("/app"))
                try live.client.export(
                    [
                        DBusInterface(
                            clientInterface,
                            methods: [
                                DBusMethod(
                                    try MemberName("Hello"), inputs: [DBusArgument("who", "s")],
                                    outputs: [DBusArgument("greeting", "s")]
                                ) { call in [.string("hello \(call.arguments[0].stringValue ?? "")")] }
                            ],
                            properties: [DBusProperty(try MemberName("UUID"), value: .string("fe59"))])
                    ], at: try ObjectPath("/app/service0"))
                let server = live.server
                try server.export(
                    [
                        DBusInterface(
                            try InterfaceName("test.Manager"),
                            methods: [
                                DBusMethod(
                                    try MemberName("RegisterApplication"), inputs: [DBusArgument("application", "o")],
                                    outputs: [DBusArgument("greeting", "s"), DBusArgument("objects", "u")]
                                ) { call in
                                    guard let caller = call.sender, let root = call.arguments[0].objectPathValue else {
                                        throw DBusError(
                                            name: "org.freedesktop.DBus.Error.InvalidArgs", message: "no caller")
                                    }
                                    let objects = try await server.call(
                                        destination: caller, path: root,
                                        interface: try InterfaceName("org.freedesktop.DBus.ObjectManager"),
                                        member: try MemberName("GetManagedObjects"))
                                    let greeting = try await server.call(
                                        destination: caller, path: try ObjectPath("/app/service0"),
                                        interface: clientInterface,
                                        member: try MemberName("Hello"), arguments: [.string("manager")])
                                    let count = objects.first?.dictionaryEntries?.count ?? 0
                                    return greeting + [.uint32(UInt32(count))]
                                }
                            ])
                    ], at: try ObjectPath("/manager"))
                let reply = try await live.client.call(
                    destination: server.uniqueName, path: try ObjectPath("/manager"),
                    interface: try InterfaceName("test.Manager"), member: try MemberName("RegisterApplication"),
                    arguments: [.objectPath(try ObjectPath("/app"))], timeout: .seconds(5))
                #expect(reply == [.string("hello manager"), .uint32(1)])
            }
        }

        @Test func serialHandlersRunOneAtATimeInArrivalOrder() async throws {
            try await withLiveBus { live in
                let interface = try InterfaceName("test.Log")
                let log = WriteLog()
                try live.server.export(
                    [
                        DBusInterface(
                            interface,
                            methods: [
                                DBusMethod(try MemberName("Append"), inputs: [DBusArgument("n", "u")]) { call in
                                    guard let number = call.arguments[0].integerValue else { return [] }
                                    // Even calls take longer: a later call would overtake them if it could.
                                    if number % 2 == 0 {
                                        for _ in 0..<20 { await Task.yield() }
                                    }
                                    log.values.withLock { $0.append(UInt32(number)) }
                                    return []
                                }
                            ])
                    ], at: try ObjectPath("/log"))
                // Fire-and-forget calls, as a GATT client streams packets, then one awaited call.
                for index in 0..<200 {
                    try live.client.send(
                        DBusMessage(
                            type: .methodCall, destination: live.server.uniqueName, path: try ObjectPath("/log"),
                            interface: interface, member: try MemberName("Append"), arguments: [.uint32(UInt32(index))],
                            expectsReply: false))
                }
                _ = try await live.client.call(
                    destination: live.server.uniqueName, path: try ObjectPath("/log"), interface: interface,
                    member: try MemberName("Append"), arguments: [.uint32(200)])
                #expect(log.values.withLock { $0 } == Array(0...200))
            }
        }

        @Test func concurrentCallersEachGetTheirOwnReply() async throws {
            try await withLiveBus { live in
                let interface = try InterfaceName("test.Ordered")
                try live.server.export(
                    [
                        DBusInterface(
                            interface,
                            methods: [
                                DBusMethod(
                                    try MemberName("Echo"), inputs: [DBusArgument("n", "u")],
                                    outputs: [DBusArgument("n", "u")]
                                ) { call in call.arguments }
                            ])
                    ], at: try ObjectPath("/ordered"))
                let replies = try await withThrowingTaskGroup(of: [DBusValue].self) { group in
                    for index in 0..<50 {
                        group.addTask {
                            try await live.client.call(
                                destination: live.server.uniqueName, path: try ObjectPath("/ordered"),
                                interface: interface,
                                member: try MemberName("Echo"), arguments: [.uint32(UInt32(index))])
                        }
                    }
                    var all: [[DBusValue]] = []
                    for try await reply in group { all.append(reply) }
                    return all
                }
                // Every concurrent caller got its own answer back.
                #expect(Set(replies.map { $0.first?.integerValue ?? -1 }) == Set((0..<50).map(Int64.init)))
            }
        }

        @Test func losingTheBusFailsPendingCallsWithDisconnected() async throws {
            try await withLiveBus { live in
                let gate = Gate()
                defer { gate.open() }
                let started = Gate()
                try exportStall(on: live.server, gate: gate, started: started)
                let signals = try await live.client.signals(
                    matching: DBusMatchRule(interface: try InterfaceName("test.Never")))
                let pending = Task { try await callStall(live) }
                await started.wait()
                await live.bus.stop()
                let result = await pending.result
                guard case .failure(let error as DBusError) = result else {
                    Issue.record("expected a disconnected DBusError, got \(result)")
                    return
                }
                #expect(error.code == .disconnected)
                var iterator = signals.makeAsyncIterator()
                #expect(await iterator.next() == nil)
                #expect(!live.client.isOpen)
                await expectDBusError(.disconnected) {
                    _ = try await live.client.nameOwner(of: live.client.uniqueName)
                }
            }
        }
    }
}
