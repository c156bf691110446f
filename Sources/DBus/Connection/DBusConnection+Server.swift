import Synchronization

extension DBusConnection {
    /// Exports interfaces on the object at `path`, creating the object if needed.
    ///
    /// The object answers `org.freedesktop.DBus.Properties` and `Introspectable` for them.
    /// When an object manager (see ``addObjectManager(at:)``) sits above `path`, it emits
    /// `InterfacesAdded`, unless `announced` is false: then only ``announceInterfaces(_:at:)`` does, later.
    public func export(_ interfaces: [DBusInterface], at path: ObjectPath, announced: Bool = true) throws(DBusError) {
        try state.withLock { (state) throws(DBusError) in try state.registry.export(interfaces, at: path) }
        if announced { try announceInterfaces(interfaces.map(\.name), at: path) }
    }

    /// Emits `InterfacesAdded` from the object manager above `path` for the named interfaces exported there, with
    /// their current properties; nothing when no manager sits above it or none of them is exported.
    public func announceInterfaces(_ names: [InterfaceName], at path: ObjectPath) throws(DBusError) {
        let announcement = state.withLock { state -> (ObjectPath, DBusValue)? in
            guard let manager = state.registry.manager(above: path), state.registry.exports(any: names, at: path) else {
                return nil
            }
            return (manager, state.registry.interfacesAndProperties(at: path, only: names))
        }
        if let (manager, added) = announcement, isOpen {
            try emitSignal(
                path: manager, interface: StandardInterfaces.objectManager, member: StandardInterfaces.interfacesAdded,
                arguments: [.objectPath(path), added])
        }
    }

    /// Removes the named interfaces from the object at `path` (all of them when `names` is nil).
    ///
    /// The object manager above it, if any, emits `InterfacesRemoved`.
    public func unexport(_ names: [InterfaceName]? = nil, at path: ObjectPath) throws(DBusError) {
        let (manager, removed) = state.withLock { state in
            (state.registry.manager(above: path), state.registry.unexport(names, at: path))
        }
        if let manager, !removed.isEmpty, isOpen {
            try emitSignal(
                path: manager, interface: StandardInterfaces.objectManager,
                member: StandardInterfaces.interfacesRemoved,
                arguments: [.objectPath(path), .stringArray(removed.map(\.rawValue))])
        }
    }

    /// Serves `org.freedesktop.DBus.ObjectManager` at `path` for every object below it.
    public func addObjectManager(at path: ObjectPath) {
        state.withLock { $0.registry.addManager(at: path) }
    }

    /// Changes exported properties and emits one `PropertiesChanged` for those that announce changes.
    public func setProperties(
        _ values: [MemberName: DBusValue], interface: InterfaceName, at path: ObjectPath
    ) throws(DBusError) {
        let announced = try state.withLock { (state) throws(DBusError) in
            try state.registry.setValues(values, interface: interface, at: path)
        }
        guard !announced.isEmpty else { return }
        try emitSignal(
            path: path, interface: StandardInterfaces.properties, member: StandardInterfaces.propertiesChanged,
            arguments: [
                .string(interface.rawValue), ObjectRegistry.propertyMap(announced.map { ($0.key, $0.value) }),
                .stringArray([]),
            ])
    }

    /// Makes exported properties absent and announces them as invalidated in `PropertiesChanged`.
    public func removeProperties(_ names: [MemberName], interface: InterfaceName, at path: ObjectPath) throws(DBusError)
    {
        let invalidated = try state.withLock { (state) throws(DBusError) in
            try state.registry.removeValues(names, interface: interface, at: path)
        }
        guard !invalidated.isEmpty else { return }
        try emitSignal(
            path: path, interface: StandardInterfaces.properties, member: StandardInterfaces.propertiesChanged,
            arguments: [
                .string(interface.rawValue), ObjectRegistry.propertyMap([]),
                .stringArray(invalidated.map(\.rawValue)),
            ])
    }

    /// Changes one exported property (see ``setProperties(_:interface:at:)``).
    public func setProperty(
        _ name: MemberName, to value: DBusValue, interface: InterfaceName, at path: ObjectPath
    ) throws(DBusError) {
        try setProperties([name: value], interface: interface, at: path)
    }

    /// The current value of an exported property.
    public func exportedProperty(_ name: MemberName, interface: InterfaceName, at path: ObjectPath) -> DBusValue? {
        state.withLock { $0.registry.value(of: name, interface: interface, at: path) }
    }

    /// Routes an incoming call: built-in answers go out at once, user handlers are queued.
    func dispatch(_ call: DBusMessage) {
        let route = state.withLock { $0.registry.route(call) }
        switch route {
        case .reply(let arguments):
            reply(to: call, with: .success(arguments))
        case .error(let error):
            reply(to: call, with: .failure(error))
        case .handler(let method):
            incomingCalls.yield(IncomingCall(message: call, method: method))
        case .setProperty(let path, let interface, let property, let value):
            do {
                try property.onSet?(value)
                try setProperty(property.name, to: value, interface: interface, at: path)
                reply(to: call, with: .success([]))
            } catch let error as DBusError {
                reply(to: call, with: .failure(error))
            } catch {
                reply(to: call, with: .failure(DBusError.failed(String(describing: error))))
            }
        }
    }

    /// Runs queued handlers on the loop (they must not block): one at a time in arrival order, or in their own
    /// task if concurrent.
    func serveIncomingCalls(_ calls: AsyncStream<IncomingCall>) async {
        for await call in calls {
            if call.method.runsConcurrently {
                Task(executorPreference: loop) { [self] in await run(call) }
            } else {
                await run(call)
            }
        }
    }

    private func run(_ call: IncomingCall) async {
        do {
            let outputs = try await call.method.handler(call.message)
            let signature = DBusValue.signature(of: outputs).rawValue
            guard signature == call.method.outputSignature else {
                reply(
                    to: call.message,
                    with: .failure(
                        DBusError.failed(
                            "\(call.method.name) returned \"\(signature)\" instead of \"\(call.method.outputSignature)\""
                        )))
                return
            }
            reply(to: call.message, with: .success(outputs))
        } catch let error as DBusError {
            reply(to: call.message, with: .failure(error))
        } catch {
            reply(to: call.message, with: .failure(DBusError.failed(String(describing: error))))
        }
    }

    /// Sends the reply to a call, unless the caller asked for none. A reply that cannot be
    /// encoded is replaced by an error, so the caller is never left waiting.
    func reply(to call: DBusMessage, with result: Result<[DBusValue], DBusError>) {
        guard call.expectsReply else { return }
        switch result {
        case .success(let arguments):
            do {
                try send(DBusMessage.methodReturn(to: call, arguments: arguments))
            } catch {
                if error.code != .disconnected {
                    try? send(DBusMessage.errorReply(to: call, error: error))
                }
            }
        case .failure(let error):
            try? send(DBusMessage.errorReply(to: call, error: error))
        }
    }
}
