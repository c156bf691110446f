import DBus
import Glibc
import Testing
import TestSupport

extension LiveBusTests {
    @Suite struct EchoRoundTripTests {
        @Test func everyTypeRoundTripsThroughARealBus() async throws {
            let cases = try ValueCase.all()
            let echo = try InterfaceName("test.Echo")
            let path = try ObjectPath("/test/echo")
            try await withLiveBus { live in
                // One method per case, typed with that case's signature in and out.
                let methods = try cases.enumerated().map { index, testCase in
                    DBusMethod(
                        try MemberName("Echo\(index)"),
                        inputs: [DBusArgument("value", testCase.value.signature)],
                        outputs: [DBusArgument("value", testCase.value.signature)]
                    ) { call in call.arguments }
                }
                try live.server.export([DBusInterface(echo, methods: methods)], at: path)
                for (index, testCase) in cases.enumerated() {
                    let reply = try await live.client.call(
                        destination: live.server.uniqueName, path: path, interface: echo,
                        member: try MemberName("Echo\(index)"), arguments: [testCase.value])
                    #expect(reply == [testCase.value], "\(testCase.signature)")
                }
            }
        }

        @Test func fileDescriptorsArePassedBothWaysAndEveryCopyIsClosed() async throws {
            let echo = try InterfaceName("test.Echo")
            let path = try ObjectPath("/test/echo")
            try await withLiveBus { live in
                #expect(live.client.canPassFileDescriptors)
                try live.server.export(
                    [
                        DBusInterface(
                            echo,
                            methods: [
                                DBusMethod(
                                    try MemberName("EchoDescriptor"), inputs: [DBusArgument("fd", "h")],
                                    outputs: [DBusArgument("fd", "h"), DBusArgument("mtu", "q")]
                                ) { call in [call.arguments[0], .uint16(517)] }
                            ])
                    ], at: path)
                var ends: [Int32] = [-1, -1]
                try #require(closeOnExecPipe(&ends))
                defer { Glibc.close(ends[0]) }
                let original = OwnedFileDescriptor(taking: ends[1])
                let reply = try await live.client.call(
                    destination: live.server.uniqueName, path: path, interface: echo,
                    member: try MemberName("EchoDescriptor"), arguments: [.unixFileDescriptor(original)])
                #expect(reply.count == 2)
                #expect(reply.last == .uint16(517))
                let returned = try #require(reply.first?.fileDescriptorValue)
                let returnedNumber = try #require(returned.rawValue)
                #expect(returnedNumber != ends[1])
                // The returned descriptor is a write end of the same pipe.
                var byte: UInt8 = 0x5A
                #expect(write(returnedNumber, &byte, 1) == 1)
                var received: UInt8 = 0
                #expect(read(ends[0], &received, 1) == 1)
                #expect(received == 0x5A)
                // Once our two copies are closed, no copy is left anywhere (the server's was closed too).
                original.close()
                #expect(!pollHangsUp(ends[0]))
                returned.close()
                // The server and both libdbus messages drop theirs as soon as they are done with them.
                let readEnd = ends[0]
                #expect(try await offThePool { pollHangsUp(readEnd, waitingUpTo: 5000) })  // a wait of its own thread
            }
        }
    }
}
