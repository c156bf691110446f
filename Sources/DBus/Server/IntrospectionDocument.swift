/// Generates `org.freedesktop.DBus.Introspectable` XML from the registry.
enum IntrospectionDocument {
    static let doctype =
        "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"\n"
        + "\"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n"

    /// The XML for the object at `path`: its interfaces and its direct children.
    static func xml(for path: ObjectPath, in registry: ObjectRegistry) -> String {
        var lines = [doctype + "<node>"]
        var interfaces: [DBusInterface] = []
        if registry.objects[path] != nil || registry.managers.contains(path) {
            interfaces.append(StandardInterfaces.introspectableDescription)
        }
        if registry.objects[path] != nil {
            interfaces.append(StandardInterfaces.propertiesDescription)
        }
        if registry.managers.contains(path) {
            interfaces.append(StandardInterfaces.objectManagerDescription)
        }
        interfaces += (registry.objects[path] ?? []).map(\.interface)
        for interface in interfaces {
            lines.append(" <interface name=\"\(interface.name)\">")
            for method in interface.methods {
                lines.append("  <method name=\"\(method.name)\">")
                for argument in method.inputs {
                    lines.append(
                        "   <arg name=\"\(escape(argument.name))\" type=\"\(escape(argument.signature.rawValue))\" direction=\"in\"/>"
                    )
                }
                for argument in method.outputs {
                    lines.append(
                        "   <arg name=\"\(escape(argument.name))\" type=\"\(escape(argument.signature.rawValue))\" direction=\"out\"/>"
                    )
                }
                lines.append("  </method>")
            }
            for signal in interface.signals {
                lines.append("  <signal name=\"\(signal.name)\">")
                for argument in signal.arguments {
                    lines.append(
                        "   <arg name=\"\(escape(argument.name))\" type=\"\(escape(argument.signature.rawValue))\"/>")
                }
                lines.append("  </signal>")
            }
            for property in interface.properties {
                let type = escape(property.signature.rawValue)
                if property.emitsChangedSignal {
                    lines.append(
                        "  <property name=\"\(property.name)\" type=\"\(type)\" access=\"\(property.access.rawValue)\"/>"
                    )
                } else {
                    lines.append(
                        "  <property name=\"\(property.name)\" type=\"\(type)\" access=\"\(property.access.rawValue)\">"
                    )
                    lines.append(
                        "   <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"false\"/>")
                    lines.append("  </property>")
                }
            }
            lines.append(" </interface>")
        }
        for child in children(of: path, in: registry) {
            lines.append(" <node name=\"\(escape(child))\"/>")
        }
        lines.append("</node>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The names of the path elements directly below `path` that lead to exported objects.
    static func children(of path: ObjectPath, in registry: ObjectRegistry) -> [String] {
        let prefix = path.rawValue == "/" ? "/" : path.rawValue + "/"
        var names: Set<String> = []
        for candidate in Array(registry.objects.keys) + Array(registry.managers) where path.isAncestor(of: candidate) {
            if let first = candidate.rawValue.dropFirst(prefix.count).split(separator: "/").first {
                names.insert(String(first))
            }
        }
        return names.sorted()
    }

    private static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
