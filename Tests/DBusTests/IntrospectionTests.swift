import DBus
import Foundation
import FoundationXML
import Testing

/// Collects what an introspection document declares, read back with an XML parser.
final class IntrospectionReader: NSObject, XMLParserDelegate {
    var interfaces: [String] = []
    var methods: [String: String] = [:]  // "Interface.Method" → "in:… out:…"
    var signals: [String: String] = [:]
    var properties: [String: String] = [:]  // "Interface.Property" → "type access"
    var children: [String] = []
    private var depth = 0
    private var interface = ""
    private var member = ""
    private var isSignal = false

    static func read(_ xml: String) -> IntrospectionReader? {
        let reader = IntrospectionReader()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = reader
        return parser.parse() ? reader : nil
    }

    func parser(
        _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        let name = attributes["name"] ?? ""
        switch element {
        case "node":
            depth += 1
            if depth == 2 { children.append(name) }
        case "interface":
            interface = name
            interfaces.append(name)
        case "method", "signal":
            member = "\(interface).\(name)"
            isSignal = element == "signal"
            if isSignal { signals[member] = "" } else { methods[member] = "" }
        case "arg":
            let entry = "\(attributes["direction"] ?? "out"):\(attributes["type"] ?? "?") "
            if isSignal { signals[member, default: ""] += entry } else { methods[member, default: ""] += entry }
        case "property":
            properties["\(interface).\(name)"] = "\(attributes["type"] ?? "?") \(attributes["access"] ?? "?")"
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        if element == "node" { depth -= 1 }
    }
}

extension LiveBusTests {
    @Suite struct IntrospectionTests {
        @Test func introspectionXMLDescribesTheRegisteredInterfacesAndChildren() async throws {
            let characteristic = try InterfaceName("test.GattCharacteristic")
            try await withLiveBus { live in
                live.server.addObjectManager(at: .root)
                try live.server.export(
                    [
                        DBusInterface(
                            characteristic,
                            methods: [
                                DBusMethod(
                                    try MemberName("WriteValue"),
                                    inputs: [DBusArgument("value", "ay"), DBusArgument("options", "a{sv}")]
                                ) { _ in [] },
                                DBusMethod(
                                    try MemberName("AcquireWrite"), inputs: [DBusArgument("options", "a{sv}")],
                                    outputs: [DBusArgument("fd", "h"), DBusArgument("mtu", "q")]
                                ) { _ in [] },
                            ],
                            properties: [
                                DBusProperty(
                                    try MemberName("UUID"), value: .string("8ec90001-f315-4f60-9fb8-838830daea50")),
                                DBusProperty(try MemberName("Value"), value: .byteArray([]), access: .readWrite) { _ in
                                },
                            ],
                            signals: [
                                DBusSignalDescription(
                                    try MemberName("Notified"), arguments: [DBusArgument("value", "ay")])
                            ])
                    ], at: try ObjectPath("/test/service0/char0"))
                try live.server.export(
                    [DBusInterface(try InterfaceName("test.Other"))], at: try ObjectPath("/test/service1"))

                let introspectable = try InterfaceName("org.freedesktop.DBus.Introspectable")
                func introspect(_ path: String) async throws -> IntrospectionReader {
                    let reply = try await live.client.call(
                        destination: live.server.uniqueName, path: try ObjectPath(path), interface: introspectable,
                        member: try MemberName("Introspect"))
                    let xml = try #require(reply.first?.stringValue)
                    return try #require(IntrospectionReader.read(xml), "not XML: \(xml)")
                }

                let leaf = try await introspect("/test/service0/char0")
                #expect(
                    leaf.interfaces == [
                        "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Properties",
                        "test.GattCharacteristic",
                    ])
                #expect(leaf.methods["test.GattCharacteristic.WriteValue"] == "in:ay in:a{sv} ")
                #expect(leaf.methods["test.GattCharacteristic.AcquireWrite"] == "in:a{sv} out:h out:q ")
                #expect(leaf.methods["org.freedesktop.DBus.Properties.Get"] == "in:s in:s out:v ")
                #expect(leaf.signals["test.GattCharacteristic.Notified"] == "out:ay ")
                #expect(leaf.signals["org.freedesktop.DBus.Properties.PropertiesChanged"] == "out:s out:a{sv} out:as ")
                #expect(leaf.properties["test.GattCharacteristic.UUID"] == "s read")
                #expect(leaf.properties["test.GattCharacteristic.Value"] == "ay readwrite")
                #expect(leaf.children.isEmpty)

                let root = try await introspect("/")
                #expect(root.interfaces.contains("org.freedesktop.DBus.ObjectManager"))
                #expect(root.methods["org.freedesktop.DBus.ObjectManager.GetManagedObjects"] == "out:a{oa{sa{sv}}} ")
                #expect(root.children == ["test"])

                let middle = try await introspect("/test")
                #expect(middle.interfaces.isEmpty)
                #expect(middle.children == ["service0", "service1"])
            }
        }

        @Test func introspectWithoutInterfaceAndPeerMethodsAreAnswered() async throws {
            try await withLiveBus { live in
                try live.server.export([DBusInterface(try InterfaceName("test.Thing"))], at: try ObjectPath("/thing"))
                let reply = try await live.client.call(
                    destination: live.server.uniqueName, path: try ObjectPath("/thing"), interface: nil,
                    member: try MemberName("Introspect"))
                let xml = try #require(reply.first?.stringValue)
                #expect(IntrospectionReader.read(xml)?.interfaces.contains("test.Thing") == true)
                let peer = try InterfaceName("org.freedesktop.DBus.Peer")
                let ping = try await live.client.call(
                    destination: live.server.uniqueName, path: .root, interface: peer, member: try MemberName("Ping"))
                #expect(ping.isEmpty)
                let hasMachineID = ["/etc/machine-id", "/var/lib/dbus/machine-id"].contains {
                    FileManager.default.fileExists(atPath: $0)
                }
                if hasMachineID {
                    let machine = try await live.client.call(
                        destination: live.server.uniqueName, path: .root, interface: peer,
                        member: try MemberName("GetMachineId"))
                    #expect(machine.first?.stringValue?.count == 32)
                } else {
                    // A container without a machine id gets a D-Bus error, never a crash.
                    await expectDBusError(.other) {
                        _ = try await live.client.call(
                            destination: live.server.uniqueName, path: .root, interface: peer,
                            member: try MemberName("GetMachineId"))
                    }
                }
            }
        }
    }
}
