@testable import DBus
import Synchronization
import Testing

/// A call sent again and again with other bytes (``DBusPacketCall``): built once for each count of bytes, every send a
/// copy carrying its own bytes and the reply flag asked for, arriving as if built each time.
@Suite struct DBusPacketCallTests {
    /// `WriteValue(<bytes>, {"type": <"command">})` to a characteristic, as an upload sends its packets.
    static func writeCommand() throws -> DBusPacketCall {
        DBusPacketCall(
            destination: try BusName("org.bluez"),
            path: try ObjectPath("/org/bluez/hci0/dev_C0_FF_EE_00_00_10/service000b/char000d"),
            interface: try InterfaceName("org.bluez.GattCharacteristic1"), member: try MemberName("WriteValue"),
            trailingArguments: [.stringVariantDictionary(["type": .string("command")])])
    }

    @Test func everySendIsACopyOfTheCallBuiltOnceForItsCountCarryingItsOwnBytes() throws {
        let call = try Self.writeCommand()
        // Three packets of 244 bytes, each with other bytes (0x00..., 0x01..., 0x02... counting up).
        let packets = (0..<3).map { index in (0..<244).map { UInt8(truncatingIfNeeded: $0 + index) } }
        let handles = try packets.map { try call.handle(bytes: $0, expectsReply: false) }
        #expect(call.templateCount == 1, "one count of bytes, one call built")
        #expect(Set(handles.map(\.pointer)).count == 3, "each send its own message")
        for (handle, bytes) in zip(handles, packets) {
            #expect(try DBusMessage(handle: handle) == call.message(bytes: bytes, expectsReply: false))
        }
        // The template is untouched by the bytes written over its copies: another copy carries its own too.
        let fourth = [UInt8](repeating: 0xFF, count: 244)
        #expect(try DBusMessage(handle: try call.handle(bytes: fourth, expectsReply: false)) == call.message(bytes: fourth, expectsReply: false))
    }

    @Test func eachCountHasItsOwnTemplateAndAtMostFourAreKept() throws {
        let call = try Self.writeCommand()
        // An object's full packets (244 bytes) and its short last one (192 bytes; 4096 = 16 × 244 + 192).
        for count in [244, 192, 244, 192] {
            let bytes = [UInt8](repeating: UInt8(count & 0xFF), count: count)
            #expect(try DBusMessage(handle: try call.handle(bytes: bytes, expectsReply: false)) == call.message(bytes: bytes, expectsReply: false))
        }
        #expect(call.templateCount == 2)
        for count in [1, 2, 3, 4, 5] {
            let bytes = [UInt8](repeating: 0x5A, count: count)
            #expect(try DBusMessage(handle: try call.handle(bytes: bytes, expectsReply: false)) == call.message(bytes: bytes, expectsReply: false))
        }
        #expect(call.templateCount == DBusPacketCall.countsKept)
    }

    @Test func theReplyFlagIsTheOneAskedForOnEachSend() throws {
        let call = try Self.writeCommand()
        let bytes = [UInt8](repeating: 0xA5, count: 20)
        // Built first without a reply wanted, then copied with and without.
        for expectsReply in [false, true, false, true] {
            let message = try DBusMessage(handle: try call.handle(bytes: bytes, expectsReply: expectsReply))
            #expect(message.expectsReply == expectsReply)
            #expect(message == call.message(bytes: bytes, expectsReply: expectsReply))
        }
    }

    @Test func anEmptyByteArrayIsSentToo() throws {
        let call = try Self.writeCommand()
        for _ in 0..<2 {
            #expect(try DBusMessage(handle: try call.handle(bytes: [], expectsReply: false)) == call.message(bytes: [], expectsReply: false))
        }
    }

    /// Through a real dbus-daemon: copies of one call, with and without a reply wanted, arrive with their own bytes,
    /// in the order sent.
    @Suite struct DBusPacketCallLiveTests {
        @Test func packetsArriveWithTheirOwnBytesInOrderAndOnlyTheAwaitedOneIsAnswered() async throws {
            let iface = try InterfaceName("test.Packets")
            let path = try ObjectPath("/test/packets")
            let received = Mutex<[(bytes: [UInt8], expectsReply: Bool)]>([])
            // Ten packets of 244 bytes, each filled with its index, then a short one.
            let payloads = (0..<10).map { [UInt8](repeating: UInt8($0), count: 244) } + [[0xEE, 0xEF]]
            try await withLiveBus { live in
                try live.server.export(
                    [DBusInterface(iface, methods: [
                        DBusMethod(
                            try MemberName("WriteValue"), inputs: [DBusArgument("value", "ay"), DBusArgument("options", "a{sv}")],
                            outputs: []
                        ) { call in
                            if case .bytes(let bytes) = call.arguments.first {
                                received.withLock { $0.append((bytes, call.expectsReply)) }
                            }
                            return []
                        }
                    ])], at: path)
                let call = DBusPacketCall(
                    destination: live.server.uniqueName, path: path, interface: iface, member: try MemberName("WriteValue"),
                    trailingArguments: [.stringVariantDictionary(["type": .string("command")])])
                for payload in payloads { try live.client.send(call, bytes: payload) }
                // One asking for its answer after them: the server has handled every packet sent before it.
                let pending = try live.client.send(awaitingReply: call, bytes: [0x03], timeout: .seconds(10))
                let reply = await pending.reply()
                #expect((try? reply.get()) != nil, "answered: \(reply)")
            }
            let seen = received.withLock { $0 }
            #expect(seen.map(\.bytes) == payloads + [[0x03]])
            #expect(seen.map(\.expectsReply) == Array(repeating: false, count: payloads.count) + [true])
        }
    }
}
