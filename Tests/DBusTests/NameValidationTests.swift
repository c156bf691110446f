import DBus
import Testing

@Suite struct NameValidationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let kind: String
        let text: String
        let valid: Bool
        var testDescription: String { "\(kind) \"\(text)\" is \(valid ? "valid" : "invalid")" }
    }

    static let cases: [Case] = [
        Case(kind: "path", text: "/", valid: true),
        Case(kind: "path", text: "/org/bluez/hci0/dev_AA_BB", valid: true),
        Case(kind: "path", text: "", valid: false),
        Case(kind: "path", text: "org/bluez", valid: false),
        Case(kind: "path", text: "/org/bluez/", valid: false),
        Case(kind: "path", text: "/org//bluez", valid: false),
        Case(kind: "path", text: "/org/blu-ez", valid: false),
        Case(kind: "path", text: "/org\0/x", valid: false),
        Case(kind: "bus", text: "org.bluez", valid: true),
        Case(kind: "bus", text: ":1.42", valid: true),
        Case(kind: "bus", text: "bluez", valid: false),
        Case(kind: "bus", text: "org..bluez", valid: false),
        Case(kind: "interface", text: "org.bluez.Adapter1", valid: true),
        Case(kind: "interface", text: "Adapter1", valid: false),
        Case(kind: "interface", text: "org.bluez.1Adapter", valid: false),
        Case(kind: "member", text: "StartDiscovery", valid: true),
        Case(kind: "member", text: "Start.Discovery", valid: false),
        Case(kind: "member", text: "", valid: false),
        Case(kind: "error", text: "org.bluez.Error.Failed", valid: true),
        Case(kind: "error", text: "Failed", valid: false),
        Case(kind: "signature", text: "a{sv}", valid: true),
        Case(kind: "signature", text: "oa{sa{sv}}", valid: true),
        Case(kind: "signature", text: "", valid: true),
        Case(kind: "signature", text: "a{vs}", valid: false),
        Case(kind: "signature", text: "a", valid: false),
        Case(kind: "signature", text: "()", valid: false),
        Case(kind: "signature", text: "z", valid: false),
    ]

    @Test(arguments: cases)
    func validatesNamesWithLibdbusRules(_ testCase: Case) {
        let accepted: Bool
        switch testCase.kind {
        case "path": accepted = (try? ObjectPath(testCase.text)) != nil
        case "bus": accepted = (try? BusName(testCase.text)) != nil
        case "interface": accepted = (try? InterfaceName(testCase.text)) != nil
        case "member": accepted = (try? MemberName(testCase.text)) != nil
        case "error": accepted = (try? ErrorName(testCase.text)) != nil
        default: accepted = (try? DBusSignature(testCase.text)) != nil
        }
        #expect(accepted == testCase.valid)
    }

    @Test func invalidNameThrowsInvalidArgumentsNamingTheText() {
        #expect {
            try ObjectPath("no-slash")
        } throws: { error in
            guard let error = error as? DBusError else { return false }
            return error.code == .invalidArguments && error.message.contains("no-slash")
        }
    }

    @Test func pathAncestryFollowsElementsNotPrefixes() throws {
        let adapter = try ObjectPath("/org/bluez/hci0")
        #expect(ObjectPath.root.isAncestor(of: adapter))
        #expect(try ObjectPath("/org/bluez").isAncestor(of: adapter))
        #expect(!(try ObjectPath("/org/bluez/hci")).isAncestor(of: adapter))
        #expect(!adapter.isAncestor(of: adapter))
        #expect(try adapter.appending("dev_01") == ObjectPath("/org/bluez/hci0/dev_01"))
    }
}
