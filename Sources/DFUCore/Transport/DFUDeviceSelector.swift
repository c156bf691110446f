/// Which advertising device to connect to: every given criterion must match, except that with
/// ``nameMatchesAnyAddress`` a device advertising ``name`` is accepted at any address.
///
/// A selector may also name ``fallbackAddresses``: where the device's DFU bootloader would be (an
/// nRF5 device's address + 1). A device there is taken only when nothing at ``addresses`` is heard,
/// and only when it advertises one of ``fallbackServiceUUIDs`` (a DFU bootloader's service); the
/// runner then checks, once connected, that it really is a bootloader and not an application.
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
    /// Where the device may wait in its DFU bootloader instead: taken only when no device at
    /// ``addresses`` is heard, and only advertising one of ``fallbackServiceUUIDs``.
    public var fallbackAddresses: [DFUDeviceAddress] = []
    /// The services a device at a fallback address must advertise (never empty when there are fallback addresses).
    public var fallbackServiceUUIDs: [String] = []
    /// The name a device at a fallback address must also advertise (nil: any): where the service alone does not tell
    /// a loader from an application (an SMP firmware loader advertises the service its application does).
    public var fallbackName: String?

    /// How a device matches a selector.
    public enum Match: Sendable, Hashable {
        /// It is the device selected.
        case selected
        /// It is at a fallback address and advertises a bootloader's service: take it only when no
        /// selected device is heard.
        case fallback
    }

    /// Makes a selector.
    public init(addresses: [DFUDeviceAddress] = [], name: String? = nil, serviceUUIDs: [String] = []) {
        self.addresses = addresses
        self.name = name
        self.serviceUUIDs = serviceUUIDs
    }

    /// The selector for one known address.
    public static func address(_ address: DFUDeviceAddress) -> DFUDeviceSelector { DFUDeviceSelector(addresses: [address]) }

    /// The device at `address`, or, when it is not heard, its DFU bootloader at `address + 1` (last
    /// byte, no carry: where non-bonded nRF5 bootloaders advertise), advertising one of `bootloaderServices`.
    public static func address(_ address: DFUDeviceAddress, orBootloaderAdvertising bootloaderServices: [String]) -> DFUDeviceSelector {
        var selector = DFUDeviceSelector(addresses: [address])
        selector.fallbackAddresses = [address.bootloaderAddress]
        selector.fallbackServiceUUIDs = bootloaderServices
        return selector
    }

    /// The same selector without its fallback addresses: only the device named.
    public var exact: DFUDeviceSelector {
        var selector = self
        selector.fallbackAddresses = []
        selector.fallbackServiceUUIDs = []
        selector.fallbackName = nil
        return selector
    }

    /// Whether a device at `address` was taken only as the fallback (the device named was not heard).
    public func isFallback(_ address: DFUDeviceAddress) -> Bool {
        fallbackAddresses.contains(address) && !addresses.contains(address)
    }

    /// Whether an advertisement matches. A device advertising no name passes the name rule, as on iOS.
    public func matches(address: DFUDeviceAddress, name advertisedName: String?, serviceUUIDs advertised: [String]) -> Bool {
        if !addresses.isEmpty, !addresses.contains(address) {
            guard nameMatchesAnyAddress, let name, advertisedName == name else { return false }
        }
        if let name, let advertisedName, advertisedName != name { return false }
        return Self.advertises(advertised, oneOf: serviceUUIDs)
    }

    /// How an advertisement matches, nil when it does not: the selected device, or a bootloader at a
    /// fallback address. A transport takes a fallback device only when no selected device is heard.
    public func match(address: DFUDeviceAddress, name advertisedName: String?, serviceUUIDs advertised: [String]) -> Match? {
        if matches(address: address, name: advertisedName, serviceUUIDs: advertised) { return .selected }
        guard fallbackAddresses.contains(address), !fallbackServiceUUIDs.isEmpty,
              Self.advertises(advertised, oneOf: fallbackServiceUUIDs),
              fallbackName == nil || advertisedName == fallbackName else { return nil }
        return .fallback
    }

    /// Whether `advertised` holds one of `wanted` (any case); true when `wanted` is empty.
    static func advertises(_ advertised: [String], oneOf wanted: [String]) -> Bool {
        if wanted.isEmpty { return true }
        let wanted = Set(wanted.map { $0.uppercased() })
        return advertised.contains { wanted.contains($0.uppercased()) }
    }

    /// e.g. "address AA:BB:CC:DD:EE:00, name DfuTarg", "address AA:BB:CC:DD:EE:00 (or a DFU bootloader at AA:BB:CC:DD:EE:01)".
    public var description: String {
        var parts: [String] = []
        if !addresses.isEmpty {
            var text = "address " + addresses.map(\.description).joined(separator: " or ")
            if !fallbackAddresses.isEmpty {
                let what = fallbackName.map { "a firmware loader named \($0)" } ?? "a DFU bootloader"
                text += " (or \(what) at " + fallbackAddresses.map(\.description).joined(separator: " or ") + ")"
            }
            parts.append(text)
        }
        if let name { parts.append("name \(name)") }
        if !serviceUUIDs.isEmpty { parts.append("service " + serviceUUIDs.joined(separator: " or ")) }
        return parts.isEmpty ? "any device" : parts.joined(separator: ", ")
    }
}
