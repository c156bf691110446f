/// The objects a connection exports, with their interfaces and current property values.
///
/// A plain value kept inside the connection's lock. It answers the standard interfaces
/// (Properties, ObjectManager, Introspectable) and finds the handler for other calls;
/// it never runs user code itself.
struct ObjectRegistry {
    /// One interface on one object, with its properties' current values.
    struct ExportedInterface {
        var interface: DBusInterface
        var values: [MemberName: DBusValue]
    }

    /// What the connection should do with an incoming method call.
    enum Route {
        /// Reply at once with these arguments.
        case reply([DBusValue])
        /// Reply at once with this error.
        case error(DBusError)
        /// Run a user handler.
        case handler(DBusMethod)
        /// Run a property's set handler, then store the value.
        case setProperty(path: ObjectPath, interface: InterfaceName, property: DBusProperty, value: DBusValue)
    }

    private(set) var objects: [ObjectPath: [ExportedInterface]] = [:]
    private(set) var managers: Set<ObjectPath> = []

    // MARK: Changing the registry

    /// Adds interfaces to the object at `path` (creating it).
    mutating func export(_ interfaces: [DBusInterface], at path: ObjectPath) throws(DBusError) {
        var existing = objects[path] ?? []
        for interface in interfaces {
            guard !existing.contains(where: { $0.interface.name == interface.name }) else {
                throw DBusError.invalidArguments("\(path) already exports \(interface.name)")
            }
            for method in interface.methods {
                for argument in method.inputs + method.outputs where !argument.signature.isSingleCompleteType {
                    throw DBusError.invalidArguments(
                        "\(interface.name).\(method.name) argument \(argument.name) has the invalid type \"\(argument.signature)\""
                    )
                }
            }
            for signal in interface.signals {
                for argument in signal.arguments where !argument.signature.isSingleCompleteType {
                    throw DBusError.invalidArguments(
                        "\(interface.name).\(signal.name) argument \(argument.name) has the invalid type \"\(argument.signature)\""
                    )
                }
            }
            var values: [MemberName: DBusValue] = [:]
            for property in interface.properties {
                guard property.signature.isSingleCompleteType else {
                    throw DBusError.invalidArguments(
                        "\(interface.name).\(property.name) has the invalid type \"\(property.signature)\"")
                }
                guard let value = property.value else { continue }
                guard value.signatureText == property.signature.rawValue else {
                    throw DBusError.invalidArguments(
                        "\(interface.name).\(property.name) has type \"\(property.signature)\", not \"\(value.signatureText)\""
                    )
                }
                try MessageBodyWriter.check(value)
                values[property.name] = value
            }
            existing.append(ExportedInterface(interface: interface, values: values))
        }
        objects[path] = existing
    }

    /// Removes the named interfaces (all when `names` is nil) and returns the names removed.
    mutating func unexport(_ names: [InterfaceName]?, at path: ObjectPath) -> [InterfaceName] {
        guard let existing = objects[path] else { return [] }
        let removed = existing.filter { names?.contains($0.interface.name) ?? true }.map(\.interface.name)
        let kept = existing.filter { !removed.contains($0.interface.name) }
        objects[path] = kept.isEmpty ? nil : kept
        return removed
    }

    /// Serves `org.freedesktop.DBus.ObjectManager` at `path`.
    mutating func addManager(at path: ObjectPath) {
        managers.insert(path)
    }

    /// Stores new property values; returns those that must be announced with `PropertiesChanged`.
    mutating func setValues(
        _ values: [MemberName: DBusValue], interface: InterfaceName, at path: ObjectPath
    ) throws(DBusError) -> [MemberName: DBusValue] {
        guard var exported = objects[path], let index = exported.firstIndex(where: { $0.interface.name == interface })
        else {
            throw DBusError(name: DBusError.Names.unknownInterface, message: "\(path) does not export \(interface)")
        }
        var announced: [MemberName: DBusValue] = [:]
        for (name, value) in values {
            guard let property = exported[index].interface.properties.first(where: { $0.name == name }) else {
                throw DBusError(name: DBusError.Names.unknownProperty, message: "\(interface) has no property \(name)")
            }
            guard value.signatureText == property.signature.rawValue else {
                throw DBusError.invalidArguments(
                    "\(interface).\(name) has type \"\(property.signature)\", not \"\(value.signatureText)\"")
            }
            try MessageBodyWriter.check(value)
            exported[index].values[name] = value
            if property.emitsChangedSignal {
                announced[name] = value
            }
        }
        objects[path] = exported
        return announced
    }

    /// Makes properties absent; returns those that must be announced as invalidated.
    mutating func removeValues(
        _ names: [MemberName], interface: InterfaceName, at path: ObjectPath
    ) throws(DBusError) -> [MemberName] {
        guard var exported = objects[path], let index = exported.firstIndex(where: { $0.interface.name == interface })
        else {
            throw DBusError(name: DBusError.Names.unknownInterface, message: "\(path) does not export \(interface)")
        }
        var invalidated: [MemberName] = []
        for name in names {
            guard let property = exported[index].interface.properties.first(where: { $0.name == name }) else {
                throw DBusError(name: DBusError.Names.unknownProperty, message: "\(interface) has no property \(name)")
            }
            if exported[index].values.removeValue(forKey: name) != nil && property.emitsChangedSignal {
                invalidated.append(name)
            }
        }
        objects[path] = exported
        return invalidated
    }

    // MARK: Queries

    /// The current value of a property.
    func value(of name: MemberName, interface: InterfaceName, at path: ObjectPath) -> DBusValue? {
        objects[path]?.first { $0.interface.name == interface }?.values[name]
    }

    /// Whether the object at `path` exports any of `names`.
    func exports(any names: [InterfaceName], at path: ObjectPath) -> Bool {
        objects[path]?.contains { names.contains($0.interface.name) } ?? false
    }

    /// The closest object manager strictly above `path`, which announces its changes.
    func manager(above path: ObjectPath) -> ObjectPath? {
        managers.filter { $0.isAncestor(of: path) }.max { $0.rawValue.count < $1.rawValue.count }
    }

    /// The interfaces and readable properties of one object, as in `InterfacesAdded` (`a{sa{sv}}`).
    func interfacesAndProperties(at path: ObjectPath, only names: [InterfaceName]? = nil) -> DBusValue {
        var entries: [DBusDictionaryEntry] = []
        if names == nil {
            for standard in [StandardInterfaces.introspectable, StandardInterfaces.properties] {
                entries.append(DBusDictionaryEntry(key: .string(standard.rawValue), value: Self.propertyMap([])))
            }
        }
        for exported in objects[path] ?? [] where names?.contains(exported.interface.name) ?? true {
            let readable = exported.interface.properties.filter(\.isReadable).compactMap { property in
                exported.values[property.name].map { (property.name, $0) }
            }
            entries.append(
                DBusDictionaryEntry(key: .string(exported.interface.name.rawValue), value: Self.propertyMap(readable)))
        }
        return .dictionary(keySignature: "s", valueSignature: "a{sv}", entries: entries)
    }

    /// `GetManagedObjects` for the manager at `path`: every object below it (`a{oa{sa{sv}}}`).
    func managedObjects(under path: ObjectPath) -> DBusValue {
        let entries = objects.keys.filter { path.isAncestor(of: $0) }.sorted().map { objectPath in
            DBusDictionaryEntry(key: .objectPath(objectPath), value: interfacesAndProperties(at: objectPath))
        }
        return .dictionary(keySignature: "o", valueSignature: "a{sa{sv}}", entries: entries)
    }

    static func propertyMap(_ pairs: [(MemberName, DBusValue)]) -> DBusValue {
        .dictionary(
            keySignature: "s", valueSignature: "v",
            entries: pairs.sorted { $0.0 < $1.0 }.map {
                DBusDictionaryEntry(key: .string($0.0.rawValue), value: .variant($0.1))
            })
    }

    // MARK: Routing calls

    /// Decides how to answer a method call.
    func route(_ call: DBusMessage) -> Route {
        guard let path = call.path, let member = call.member else {
            return .error(DBusError.invalidArguments("A method call needs a path and a member"))
        }
        switch call.interface {
        case StandardInterfaces.introspectable where member.rawValue == "Introspect",
            nil where member.rawValue == "Introspect" && call.arguments.isEmpty:
            return .reply([.string(IntrospectionDocument.xml(for: path, in: self))])
        case StandardInterfaces.peer where member.rawValue == "Ping":
            return .reply([])
        case StandardInterfaces.peer where member.rawValue == "GetMachineId":
            guard let machineID = LibDBus.localMachineID() else {
                return .error(DBusError.failed("The machine id is not available"))
            }
            return .reply([.string(machineID)])
        case StandardInterfaces.properties where objects[path] != nil:
            return routeProperties(call, member: member, path: path)
        case StandardInterfaces.objectManager where managers.contains(path) && member.rawValue == "GetManagedObjects":
            return .reply([managedObjects(under: path)])
        default:
            break
        }
        guard let exported = objects[path] else {
            return .error(DBusError(name: DBusError.Names.unknownObject, message: "No object at \(path)"))
        }
        let candidates = exported.filter { call.interface == nil || $0.interface.name == call.interface }
        guard !candidates.isEmpty, let interface = call.interface ?? candidates.first?.interface.name else {
            return .error(
                DBusError(
                    name: DBusError.Names.unknownInterface,
                    message: "\(path) has no interface \(call.interface?.rawValue ?? "")"))
        }
        guard let method = candidates.lazy.compactMap({ $0.interface.methods.first { $0.name == member } }).first else {
            return .error(
                DBusError(name: DBusError.Names.unknownMethod, message: "\(interface) has no method \(member)"))
        }
        guard call.signature.rawValue == method.inputSignature else {
            return .error(
                DBusError.invalidArguments(
                    "\(interface).\(member) takes \"\(method.inputSignature)\", not \"\(call.signature.rawValue)\""))
        }
        return .handler(method)
    }

    private func routeProperties(_ call: DBusMessage, member: MemberName, path: ObjectPath) -> Route {
        let arguments = call.arguments
        switch (member.rawValue, call.signature.rawValue) {
        case ("GetAll", "s"):
            guard let name = arguments[0].stringValue, let interface = try? InterfaceName(name) else {
                return .error(DBusError.invalidArguments("Invalid interface name"))
            }
            guard let exported = objects[path]?.first(where: { $0.interface.name == interface }) else {
                if interface == StandardInterfaces.properties || interface == StandardInterfaces.introspectable {
                    return .reply([Self.propertyMap([])])
                }
                return .error(
                    DBusError(name: DBusError.Names.unknownInterface, message: "\(path) has no interface \(name)"))
            }
            let readable = exported.interface.properties.filter(\.isReadable).compactMap { property in
                exported.values[property.name].map { (property.name, $0) }
            }
            return .reply([Self.propertyMap(readable)])
        case ("Get", "ss"), ("Set", "ssv"):
            let lookup = property(arguments, path: path)
            guard case .success(let (interface, property)) = lookup else {
                if case .failure(let error) = lookup { return .error(error) }
                return .error(DBusError.failed("Property lookup failed"))
            }
            if member.rawValue == "Get" {
                guard property.isReadable else {
                    return .error(
                        DBusError(
                            name: DBusError.Names.accessDenied, message: "\(interface).\(property.name) is write-only"))
                }
                guard let value = value(of: property.name, interface: interface, at: path) else {
                    return .error(DBusError.invalidArguments("No such property '\(property.name)'"))
                }
                return .reply([.variant(value)])
            }
            guard property.isWritable, property.onSet != nil else {
                return .error(
                    DBusError(
                        name: DBusError.Names.propertyReadOnly, message: "\(interface).\(property.name) is read-only"))
            }
            let newValue = arguments[2].unwrappingOneVariant
            guard newValue.signatureText == property.signature.rawValue else {
                return .error(
                    DBusError.invalidArguments(
                        "\(interface).\(property.name) has type \"\(property.signature)\", not \"\(newValue.signatureText)\""
                    ))
            }
            return .setProperty(path: path, interface: interface, property: property, value: newValue)
        default:
            return .error(
                DBusError(
                    name: DBusError.Names.unknownMethod,
                    message: "No method \(member) with signature \"\(call.signature)\""))
        }
    }

    private func property(_ arguments: [DBusValue], path: ObjectPath) -> Result<
        (InterfaceName, DBusProperty), DBusError
    > {
        guard let interfaceText = arguments[0].stringValue, let nameText = arguments[1].stringValue,
            let interface = try? InterfaceName(interfaceText), let name = try? MemberName(nameText)
        else {
            return .failure(DBusError.invalidArguments("Invalid interface or property name"))
        }
        guard let exported = objects[path]?.first(where: { $0.interface.name == interface }) else {
            return .failure(
                DBusError(name: DBusError.Names.unknownInterface, message: "\(path) has no interface \(interface)"))
        }
        guard let property = exported.interface.properties.first(where: { $0.name == name }) else {
            if exported.interface.unknownPropertyOnGet == .invalidArgs, arguments.count == 2 {
                return .failure(DBusError.invalidArguments("No such property '\(name)'"))
            }
            return .failure(
                DBusError(name: DBusError.Names.unknownProperty, message: "\(interface) has no property \(name)"))
        }
        return .success((interface, property))
    }
}
