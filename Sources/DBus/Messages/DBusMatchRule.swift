/// A D-Bus match rule: which messages a signal subscription receives.
///
/// The rule is sent to the bus with `AddMatch` (see ``ruleText``) and also checked locally
/// (see ``matches(_:)``), because the bus delivers to one connection the union of all its rules.
public struct DBusMatchRule: Sendable, Hashable, CustomStringConvertible {
    /// The message type; `.signal` by default.
    public var type: DBusMessageType?
    /// The sender: a unique name, or a well-known name (which only the bus resolves).
    public var sender: BusName?
    /// The exact object path.
    public var path: ObjectPath?
    /// A path and everything below it.
    public var pathNamespace: ObjectPath?
    /// The interface.
    public var interface: InterfaceName?
    /// The member (signal name).
    public var member: MemberName?
    /// String arguments that must match exactly, by argument index (0…63).
    public var stringArguments: [Int: String]

    /// Creates a rule; unset fields match anything.
    public init(
        type: DBusMessageType? = .signal,
        sender: BusName? = nil,
        path: ObjectPath? = nil,
        pathNamespace: ObjectPath? = nil,
        interface: InterfaceName? = nil,
        member: MemberName? = nil,
        stringArguments: [Int: String] = [:]
    ) {
        self.type = type
        self.sender = sender
        self.path = path
        self.pathNamespace = pathNamespace
        self.interface = interface
        self.member = member
        self.stringArguments = stringArguments
    }

    /// The rule in the bus's text form, such as `type='signal',interface='org.example.I'`.
    public var ruleText: String {
        var parts: [String] = []
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            parts.append("\(key)='\(value.replacingOccurrences(of: "'", with: "'\\''"))'")
        }
        let typeName: String? =
            switch type {
            case .methodCall: "method_call"
            case .methodReturn: "method_return"
            case .error: "error"
            case .signal: "signal"
            case nil: nil
            }
        add("type", typeName)
        add("sender", sender?.rawValue)
        add("path", path?.rawValue)
        add("path_namespace", pathNamespace?.rawValue)
        add("interface", interface?.rawValue)
        add("member", member?.rawValue)
        for (index, value) in stringArguments.sorted(by: { $0.key < $1.key }) {
            add("arg\(index)", value)
        }
        return parts.joined(separator: ",")
    }

    /// The rule text.
    public var description: String { ruleText }

    /// Whether `message` satisfies the rule.
    ///
    /// A well-known ``sender`` is not compared here (messages carry the owner's unique name);
    /// the bus already filtered by it. ``DBusConnection`` compares it with the name's current
    /// owner, which it follows.
    public func matches(_ message: DBusMessage) -> Bool {
        matches(message, owners: [:])
    }

    /// The sender when it is a well-known name other than the bus itself, whose owner must be looked up.
    var wellKnownSender: BusName? {
        guard let sender, !sender.rawValue.hasPrefix(":"), sender.rawValue != "org.freedesktop.DBus" else { return nil }
        return sender
    }

    /// Whether `message` satisfies the rule, given the known owners of well-known names.
    func matches(_ message: DBusMessage, owners: [BusName: String]) -> Bool {
        if let type, message.type != type { return false }
        if let sender {
            if let name = wellKnownSender {
                if let owner = owners[name], message.sender?.rawValue != owner { return false }
            } else if message.sender != sender {
                return false
            }
        }
        if let path, message.path != path { return false }
        if let pathNamespace {
            guard let messagePath = message.path,
                messagePath == pathNamespace || pathNamespace.isAncestor(of: messagePath)
            else { return false }
        }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        for (index, expected) in stringArguments {
            guard index < message.arguments.count, case .string(let actual) = message.arguments[index],
                actual == expected
            else { return false }
        }
        return true
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
