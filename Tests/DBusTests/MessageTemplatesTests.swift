@testable import DBus
import Synchronization
import Testing

/// Small method calls that repeat are kept the second time they are sent and sent as copies from then on
/// (``MessageTemplates``): a copy must be the same message, with its own serial and its own reply flag; only small
/// calls without descriptors are considered, and calls that differ each time are never kept.
@Suite struct MessageTemplatesTests {
    /// A control-point write as an upload sends it for every object: `WriteValue([0x03], {"type": <"request">})`.
    static func checksumRequest(expectsReply: Bool = true) throws -> DBusMessage {
        DBusMessage(
            type: .methodCall, destination: try BusName("org.bluez"),
            path: try ObjectPath("/org/bluez/hci0/dev_C0_FF_EE_00_00_10/service000b/char000c"),
            interface: try InterfaceName("org.bluez.GattCharacteristic1"), member: try MemberName("WriteValue"),
            arguments: [.bytes([0x03]), .stringVariantDictionary(["type": .string("request")])],
            expectsReply: expectsReply)
    }

    @Test func aCallIsKeptTheSecondTimeAndLaterOnesAreCopiesWithTheSameFieldsAndBody() throws {
        let templates = MessageTemplates()
        let call = try Self.checksumRequest()
        let first = try templates.handle(for: call)
        #expect(templates.count == 0, "sent once: only remembered")
        let second = try templates.handle(for: call)
        #expect(templates.count == 1)
        let third = try templates.handle(for: call)
        #expect(templates.count == 1)
        #expect(Set([first.pointer, second.pointer, third.pointer]).count == 3)
        for handle in [first, second, third] { #expect(try DBusMessage(handle: handle) == call) }
    }

    @Test func callsThatDifferEachTimeAreNeverKeptAndDoNotPushOutThoseThatRepeat() throws {
        let templates = MessageTemplates()
        let checksum = try Self.checksumRequest()
        for _ in 0..<2 { _ = try templates.handle(for: checksum) }
        // Small calls that differ each time: 8 bytes each.
        for index in 0..<100 {
            var packet = try Self.checksumRequest(expectsReply: false)
            packet.arguments[0] = .bytes([UInt8](repeating: UInt8(index), count: 8))
            #expect(MessageTemplates.qualifies(packet))
            _ = try templates.handle(for: packet)
        }
        #expect(templates.count == 1)
        #expect(templates.keeps(checksum))
    }

    @Test func theSameBodyWithoutAReplyWantedIsKeptApartAndKeepsItsFlag() throws {
        let templates = MessageTemplates()
        for _ in 0..<2 { _ = try templates.handle(for: try Self.checksumRequest(expectsReply: true)) }
        _ = try templates.handle(for: try Self.checksumRequest(expectsReply: false))
        let unanswered = try templates.handle(for: try Self.checksumRequest(expectsReply: false))
        #expect(templates.count == 2)
        #expect(try DBusMessage(handle: unanswered).expectsReply == false)
        #expect(try DBusMessage(handle: try templates.handle(for: try Self.checksumRequest())).expectsReply)
    }

    @Test func repliesSignalsAndCallsCarryingADescriptorAreNotKept() throws {
        let call = try Self.checksumRequest()
        #expect(MessageTemplates.qualifies(call))
        #expect(!MessageTemplates.qualifies(DBusMessage.methodReturn(to: call, arguments: [])))
        var signal = call
        signal.type = .signal
        #expect(!MessageTemplates.qualifies(signal))
        var withDescriptor = call
        withDescriptor.arguments = [.unixFileDescriptor(OwnedFileDescriptor(taking: -1))]
        #expect(!MessageTemplates.qualifies(withDescriptor))
    }

    @Test func atMostEightAreKeptAndTheOldestGoesFirst() throws {
        let templates = MessageTemplates()
        var calls: [DBusMessage] = []
        for opcode in UInt8(1)...9 {
            var call = try Self.checksumRequest()
            call.arguments[0] = .bytes([opcode])
            calls.append(call)
            for _ in 0..<2 { _ = try templates.handle(for: call) }
        }
        #expect(templates.count == MessageTemplates.capacity)
        #expect(!templates.keeps(calls[0]))
        #expect(calls[1...].allSatisfy(templates.keeps))
        // Sending the first twice again keeps it, dropping the second.
        for _ in 0..<2 { _ = try templates.handle(for: calls[0]) }
        #expect(templates.keeps(calls[0]))
        #expect(!templates.keeps(calls[1]))
        #expect(templates.count == MessageTemplates.capacity)
    }
}

extension LiveBusTests {
    /// Through a real dbus-daemon: the same small call sent many times (copies after the first) is answered every
    /// time, each with its own serial, in the order sent.
    @Suite struct MessageTemplatesLiveTests {
        @Test func theSameCallSentRepeatedlyIsAnsweredEveryTime() async throws {
            let iface = try InterfaceName("test.Repeat")
            let path = try ObjectPath("/test/repeat")
            let serials = Mutex<[UInt32]>([])
            try await withLiveBus { live in
                try live.server.export(
                    [DBusInterface(iface, methods: [
                        DBusMethod(try MemberName("Echo"), inputs: [DBusArgument("v", "ay")], outputs: [DBusArgument("v", "ay")]) { call in
                            serials.withLock { $0.append(call.serial) }
                            return call.arguments
                        }
                    ])], at: path)
                for _ in 0..<5 {
                    let reply = try await live.client.call(
                        destination: live.server.uniqueName, path: path, interface: iface, member: try MemberName("Echo"),
                        arguments: [.bytes([0x04])])
                    #expect(reply == [.bytes([0x04])])
                }
            }
            let seen = serials.withLock { $0 }
            #expect(seen.count == 5)
            #expect(Set(seen).count == 5)
            #expect(seen == seen.sorted())
        }
    }
}
