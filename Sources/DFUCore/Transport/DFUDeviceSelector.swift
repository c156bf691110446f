/// Which advertising device to connect to: every given criterion must match, except that with
/// ``nameMatchesAnyAddress`` a device advertising ``name`` is accepted at any address.
public struct DFUDeviceSelector: Sendable, Hashable, CustomStringConvertible {
    /// Accept only these addresses (any of them); empty = any address.
    public var addresses: [DFUDeviceAddress]
    /// Accept only this advertised name; nil = any name.
    public var name: String?
    /// Accept only devices advertising one of these service UUIDs; empty = any.
    public var serviceUUIDs: [String]
    /// Also accept a device at any other address when it advertises exactly ``name`` (the unique
    /// alternative name `dfu` gave a bootloader: it may come back at an address no rule predicts).
    public var nameMatchesAnyAddress = false

    /// Makes a selector.
    public init(addresses: [DFUDeviceAddress] = [], name: String? = nil, serviceUUIDs: [String] = []) {
        self.addresses = addresses
        self.name = name
        self.serviceUUIDs = serviceUUIDs
    }

    /// The selector for one known address.
    public static func address(_ address: DFUDeviceAddress) -> DFUDeviceSelector { DFUDeviceSelector(addresses: [address]) }

    /// Whether an advertisement matches. A device advertising no name passes the name rule, as on iOS.
    public func matches(address: DFUDeviceAddress, name advertisedName: String?, serviceUUIDs advertised: [String]) -> Bool {
        if !addresses.isEmpty, !addresses.contains(address) {
            guard nameMatchesAnyAddress, let name, advertisedName == name else { return false }
        }
        if let name, let advertisedName, advertisedName != name { return false }
        if !serviceUUIDs.isEmpty {
            let wanted = Set(serviceUUIDs.map { $0.uppercased() })
            if advertised.allSatisfy({ !wanted.contains($0.uppercased()) }) { return false }
        }
        return true
    }

    /// e.g. "address AA:BB:CC:DD:EE:00, name DfuTarg".
    public var description: String {
        var parts: [String] = []
        if !addresses.isEmpty { parts.append("address " + addresses.map(\.description).joined(separator: " or ")) }
        if let name { parts.append("name \(name)") }
        if !serviceUUIDs.isEmpty { parts.append("service " + serviceUUIDs.joined(separator: " or ")) }
        return parts.isEmpty ? "any device" : parts.joined(separator: ", ")
    }
}
