import DBus
import Synchronization
import Testing

extension LiveBusTests {
    /// Calls sent at once and answered later (`send(awaitingReply:)`), mixed with calls that ask for no answer
    /// (`NO_REPLY_EXPECTED`): the order a server sees, and what comes back.
    @Suite struct PendingReplyTests {
        @Test func callsSentWithAndWithoutAnswersReachTheServerInTheOrderSent() async throws {
            let iface = try InterfaceName("test.Order")
            let path = try ObjectPath("/test/order")
            let seen = Mutex<[UInt32]>([])
            try await withLiveBus { live in
                try live.server.export(
                    [DBusInterface(iface, methods: [
                        DBusMethod(try MemberName("Take"), inputs: [DBusArgument("n", "u")], outputs: [DBusArgument("n", "u")]) { call in
                            if case .uint32(let number) = call.arguments.first { seen.withLock { $0.append(number) } }
                            return call.arguments
                        }
                    ])], at: path)
                func message(_ number: UInt32, answered: Bool) throws -> DBusMessage {
                    DBusMessage(type: .methodCall, destination: live.server.uniqueName, path: path, interface: iface,
                                member: try MemberName("Take"), arguments: [.uint32(number)], expectsReply: answered)
                }
                // 1–3 without an answer, 4 answered later, 5–7 without, 8 answered later: all sent before any wait.
                var pending: [DBusPendingReply] = []
                for number in UInt32(1)...8 {
                    if number % 4 == 0 {
                        pending.append(try live.client.send(awaitingReply: try message(number, answered: true), timeout: .seconds(10)))
                    } else {
                        try live.client.send(try message(number, answered: false))
                    }
                }
                // Asked for out of order: each keeps its own answer until then.
                let eighth = try await pending[1].reply().get()
                let fourth = try await pending[0].reply().get()
                #expect(eighth.arguments == [.uint32(8)])
                #expect(fourth.arguments == [.uint32(4)])
                // An answer to 8 means the server has taken everything sent before it, in order.
                #expect(seen.withLock { $0 } == Array(1...8))
            }
        }

        @Test func aCallThatMeetsAnErrorKeepsTheErrorUntilAskedFor() async throws {
            try await withLiveBus { live in
                let pending = try live.client.send(
                    awaitingReply: DBusMessage(type: .methodCall, destination: live.server.uniqueName, path: try ObjectPath("/nothing"),
                                               interface: try InterfaceName("test.None"), member: try MemberName("Missing")),
                    timeout: .seconds(10))
                guard case .failure(let error) = await pending.reply() else {
                    Issue.record("a call to a method nobody exports was answered")
                    return
                }
                #expect(error.name.hasPrefix("org.freedesktop.DBus.Error.Unknown"))
            }
        }

        @Test func everyTaskWaitingForAReplyGetsIt() async throws {
            let iface = try InterfaceName("test.Slow")
            let path = try ObjectPath("/test/slow")
            try await withLiveBus { live in
                try live.server.export(
                    [DBusInterface(iface, methods: [
                        DBusMethod(try MemberName("Echo"), inputs: [DBusArgument("n", "u")], outputs: [DBusArgument("n", "u")]) { call in
                            call.arguments
                        }
                    ])], at: path)
                let pending = try live.client.send(
                    awaitingReply: DBusMessage(type: .methodCall, destination: live.server.uniqueName, path: path, interface: iface,
                                               member: try MemberName("Echo"), arguments: [.uint32(7)]),
                    timeout: .seconds(10))
                async let first = pending.reply()
                async let second = pending.reply()
                let (a, b) = await (first, second)
                #expect(try a.get().arguments == [.uint32(7)])
                #expect(try b.get().arguments == [.uint32(7)])
                // Asked again after it came: at once, the same.
                #expect(try await pending.reply().get().arguments == [.uint32(7)])
            }
        }

        @Test func aCallThatExpectsNoReplyCannotBeAwaited() async throws {
            try await withLiveBus { live in
                let message = DBusMessage(type: .methodCall, destination: live.server.uniqueName, path: try ObjectPath("/x"),
                                          member: try MemberName("Y"), expectsReply: false)
                #expect(throws: DBusError.self) { try live.client.send(awaitingReply: message, timeout: .seconds(1)) }
            }
        }
    }
}
