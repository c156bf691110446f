import DBus
import Synchronization
import Testing

extension LiveBusTests {
    @Suite struct SignalTests {
        @Test func onlySignalsMatchingTheRuleAreDelivered() async throws {
            let path = try ObjectPath("/test/emitter")
            let wanted = try InterfaceName("test.Wanted")
            let other = try InterfaceName("test.Other")
            let member = try MemberName("Tick")
            try await withLiveBus { live in
                let stream = try await live.client.signals(
                    matching: DBusMatchRule(sender: live.server.uniqueName, interface: wanted, member: member))
                // Sent in this order; the bus keeps the order from one sender.
                try live.server.emitSignal(path: path, interface: other, member: member, arguments: [.uint32(1)])
                try live.server.emitSignal(path: path, interface: wanted, member: member, arguments: [.uint32(2)])
                let first = try #require(await nextElement(of: stream))
                #expect(first.interface == wanted)
                #expect(first.arguments == [.uint32(2)])
                #expect(first.sender == live.server.uniqueName)
                #expect(first.path == path)
            }
        }

        @Test func aSignalIsObservedOnDeliveryBeforeALaterReplyResumesItsCaller() async throws {
            let path = try ObjectPath("/test/emitter")
            let interface = try InterfaceName("test.Announcer")
            try await withLiveBus { live in
                let observed = Mutex<[DBusValue]>([])
                let stream = try await live.client.signals(
                    matching: DBusMatchRule(sender: live.server.uniqueName, interface: interface),
                    onDelivery: { message in observed.withLock { $0 += message.arguments } })
                // The signal, then a reply from the same sender: the bus keeps that order, and the connection hands
                // the signal to its observer as it reads it, so the caller finds it there when the reply resumes it.
                try live.server.emitSignal(path: path, interface: interface, member: try MemberName("Exported"), arguments: [.uint32(7)])
                _ = try await live.client.call(
                    destination: live.server.uniqueName, path: .root,
                    interface: try InterfaceName("org.freedesktop.DBus.Introspectable"), member: try MemberName("Introspect"))
                #expect(observed.withLock { $0 } == [.uint32(7)])
                // The stream still has it, for its consumer.
                #expect(await nextElement(of: stream)?.arguments == [.uint32(7)])
            }
        }

        @Test func argumentMatchFiltersBySignalArgument() async throws {
            let path = try ObjectPath("/test/emitter")
            let interface = try InterfaceName("test.Arguments")
            let member = try MemberName("Named")
            try await withLiveBus { live in
                let stream = try await live.client.signals(
                    matching: DBusMatchRule(interface: interface, stringArguments: [0: "keep"]))
                try live.server.emitSignal(
                    path: path, interface: interface, member: member, arguments: [.string("drop")])
                try live.server.emitSignal(
                    path: path, interface: interface, member: member, arguments: [.string("keep")])
                let first = try #require(await nextElement(of: stream))
                #expect(first.arguments == [.string("keep")])
            }
        }

        @Test func streamsEndWhenTheConnectionCloses() async throws {
            try await withLiveBus { live in
                let stream = try await live.client.signals(
                    matching: DBusMatchRule(interface: try InterfaceName("test.Never")))
                live.client.close()
                var iterator = stream.makeAsyncIterator()
                #expect(await iterator.next() == nil)
                await expectDBusError(.disconnected) {
                    _ = try await live.client.signals(matching: DBusMatchRule())
                }
            }
        }

        @Test func aWellKnownSenderRuleIgnoresOtherSendersReachingTheConnection() async throws {
            let interface = try InterfaceName("test.Announcer")
            let member = try MemberName("Announce")
            let path = try ObjectPath("/announcer")
            try await withLiveBus { live in
                let name = try BusName("test.Genuine")
                try await live.server.requestName(name)
                let impostor = try DBusConnection(address: live.bus.address)
                defer { impostor.close() }
                // A second rule without a sender makes the bus deliver the impostor's signals too.
                let everyone = try await live.client.signals(matching: DBusMatchRule(interface: interface))
                let genuine = try await live.client.signals(matching: DBusMatchRule(sender: name, interface: interface))
                try impostor.emitSignal(
                    path: path, interface: interface, member: member, arguments: [.string("impostor")])
                try live.server.emitSignal(
                    path: path, interface: interface, member: member, arguments: [.string("genuine")])
                #expect(await nextElement(of: everyone)?.arguments == [.string("impostor")])
                #expect(await nextElement(of: everyone)?.arguments == [.string("genuine")])
                #expect(await nextElement(of: genuine)?.arguments == [.string("genuine")])

                // When the name moves to another connection, that one becomes the genuine sender.
                try await live.server.releaseName(name)
                try await impostor.requestName(name)
                try live.server.emitSignal(
                    path: path, interface: interface, member: member, arguments: [.string("old owner")])
                try impostor.emitSignal(
                    path: path, interface: interface, member: member, arguments: [.string("new owner")])
                #expect(await nextElement(of: genuine)?.arguments == [.string("new owner")])
            }
        }
    }
}
