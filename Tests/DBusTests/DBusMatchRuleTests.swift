import DBus
import Testing

@Suite struct DBusMatchRuleTests {
    @Test func ruleTextListsFieldsInOrderAndQuotesValues() throws {
        let rule = DBusMatchRule(
            sender: try BusName("org.bluez"),
            pathNamespace: try ObjectPath("/org/bluez"),
            interface: try InterfaceName("org.freedesktop.DBus.Properties"),
            member: try MemberName("PropertiesChanged"),
            stringArguments: [0: "org.bluez.Device1"])
        #expect(
            rule.ruleText
                == "type='signal',sender='org.bluez',path_namespace='/org/bluez',"
                + "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='org.bluez.Device1'")
    }

    @Test func apostropheInArgumentIsEscapedTheBusWay() {
        let rule = DBusMatchRule(type: nil, stringArguments: [1: "it's"])
        #expect(rule.ruleText == "arg1='it'\\''s'")
    }

    @Test func matchesByPathNamespaceMemberAndStringArgument() throws {
        let rule = DBusMatchRule(
            pathNamespace: try ObjectPath("/org/bluez"), member: try MemberName("PropertiesChanged"),
            stringArguments: [0: "org.bluez.Device1"])
        var message = DBusMessage(
            type: .signal, path: try ObjectPath("/org/bluez/hci0/dev_1"),
            interface: try InterfaceName("org.freedesktop.DBus.Properties"),
            member: try MemberName("PropertiesChanged"),
            arguments: [.string("org.bluez.Device1")])
        #expect(rule.matches(message))
        message.arguments = [.string("org.bluez.Adapter1")]
        #expect(!rule.matches(message))
        message.arguments = [.string("org.bluez.Device1")]
        message.path = try ObjectPath("/org/bluezz")
        #expect(!rule.matches(message))
        message.path = try ObjectPath("/org/bluez")
        #expect(rule.matches(message))
        message.type = .methodCall
        #expect(!rule.matches(message))
    }
}
