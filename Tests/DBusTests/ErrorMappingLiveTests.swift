import DBus
import Testing

extension LiveBusTests {
    @Suite struct ErrorMappingLiveTests {
        @Test func callToAMissingNameIsNoSuchName() async throws {
            try await withLiveBus { live in
                let error = await expectDBusError(.noSuchName) {
                    _ = try await live.client.call(
                        destination: try BusName("test.Nobody"), path: try ObjectPath("/"),
                        interface: try InterfaceName("test.Nothing"), member: try MemberName("Ping"))
                }
                #expect(error?.name == "org.freedesktop.DBus.Error.ServiceUnknown")
                #expect(error?.message.contains("test.Nobody") == true)
            }
        }

        @Test func unknownObjectMethodAndArgumentsAreReportedByTheExporter() async throws {
            let interface = try InterfaceName("test.Exported")
            let path = try ObjectPath("/test/exported")
            try await withLiveBus { live in
                try live.server.export(
                    [
                        DBusInterface(
                            interface,
                            methods: [DBusMethod(try MemberName("Take"), inputs: [DBusArgument("n", "u")]) { _ in [] }])
                    ], at: path)
                let destination = live.server.uniqueName
                await expectDBusError(.unknownObject) {
                    _ = try await live.client.call(
                        destination: destination, path: try ObjectPath("/test/none"), interface: interface,
                        member: try MemberName("Take"), arguments: [.uint32(1)])
                }
                await expectDBusError(.unknownMethod) {
                    _ = try await live.client.call(
                        destination: destination, path: path, interface: interface, member: try MemberName("Give"))
                }
                await expectDBusError(.unknownInterface) {
                    _ = try await live.client.call(
                        destination: destination, path: path, interface: try InterfaceName("test.Other"),
                        member: try MemberName("Take"), arguments: [.uint32(1)])
                }
                await expectDBusError(.invalidArguments) {
                    _ = try await live.client.call(
                        destination: destination, path: path, interface: interface, member: try MemberName("Take"),
                        arguments: [.string("one")])
                }
                // Without an interface the member is looked up on every interface of the object.
                let reply = try await live.client.call(
                    destination: destination, path: path, interface: nil, member: try MemberName("Take"),
                    arguments: [.uint32(1)])
                #expect(reply.isEmpty)
            }
        }

        @Test func handlerErrorsKeepTheirNameAndMessage() async throws {
            let interface = try InterfaceName("test.Failing")
            try await withLiveBus { live in
                try live.server.export(
                    [
                        DBusInterface(
                            interface,
                            methods: [
                                DBusMethod(try MemberName("Fail")) { _ in
                                    throw DBusError(
                                        name: "org.bluez.Error.InProgress", message: "Operation already in progress")
                                }
                            ])
                    ], at: try ObjectPath("/fail"))
                let error = await expectDBusError(.other) {
                    _ = try await live.client.call(
                        destination: live.server.uniqueName, path: try ObjectPath("/fail"), interface: interface,
                        member: try MemberName("Fail"))
                }
                #expect(
                    error == DBusError(name: "org.bluez.Error.InProgress", message: "Operation already in progress"))
            }
        }

        @Test func denyPolicyInTheDaemonGivesAccessDenied() async throws {
            let forbidden = try InterfaceName("test.Forbidden")
            try await withLiveBus(denyRules: ["<deny send_interface=\"test.Forbidden\"/>"]) { live in
                try live.server.export(
                    [DBusInterface(forbidden, methods: [DBusMethod(try MemberName("Open")) { _ in [] }])],
                    at: try ObjectPath("/vault"))
                let error = await expectDBusError(.accessDenied) {
                    _ = try await live.client.call(
                        destination: live.server.uniqueName, path: try ObjectPath("/vault"), interface: forbidden,
                        member: try MemberName("Open"))
                }
                #expect(error?.name == "org.freedesktop.DBus.Error.AccessDenied")
            }
        }

        @Test func connectingWhereNoBusListensIsNoServer() async {
            await expectDBusError(.noServer) {
                _ = try DBusConnection(address: "unix:path=/nonexistent/dfu-test-bus")
            }
        }

        @Test func aSecondOwnerOfAWellKnownNameIsRefused() async throws {
            try await withLiveBus { live in
                let name = try BusName("test.Owned.Name")
                try await live.server.requestName(name)
                #expect(try await live.client.nameOwner(of: name) == live.server.uniqueName)
                await expectDBusError(.other) {
                    try await live.client.requestName(name)
                }
                try await live.server.releaseName(name)
                await expectDBusError(.noSuchName) {
                    _ = try await live.client.nameOwner(of: name)
                }
            }
        }

        @Test func nameOwnerChangedReportsAServiceComingAndGoing() async throws {
            try await withLiveBus { live in
                let name = try BusName("test.Vanishing")
                let changes = try await live.client.signals(
                    matching: DBusMatchRule(
                        sender: try BusName("org.freedesktop.DBus"),
                        interface: try InterfaceName("org.freedesktop.DBus"),
                        member: try MemberName("NameOwnerChanged"), stringArguments: [0: name.rawValue]))
                try await live.server.requestName(name)
                let appeared = try #require(await nextElement(of: changes))
                #expect(
                    appeared.arguments == [
                        .string(name.rawValue), .string(""), .string(live.server.uniqueName.rawValue),
                    ])
                live.server.close()
                let vanished = try #require(await nextElement(of: changes))
                #expect(
                    vanished.arguments == [
                        .string(name.rawValue), .string(live.server.uniqueName.rawValue), .string(""),
                    ])
            }
        }

        @Test func exportingAnInvalidArgumentTypeIsRefused() async throws {
            try await withLiveBus { live in
                await expectDBusError(.invalidArguments) {
                    try live.server.export(
                        [
                            DBusInterface(
                                try InterfaceName("test.Broken"),
                                methods: [
                                    DBusMethod(try MemberName("Take"), inputs: [DBusArgument("pair", "ss")]) { _ in [] }
                                ])
                        ], at: try ObjectPath("/broken"))
                }
            }
        }
    }
}
