import DBus

/// One client's `SetDiscoveryFilter` settings, as bluetoothd validates them.
struct DiscoveryFilter: Sendable, Equatable {
    /// Service UUIDs, lower-case 128-bit; empty: every device.
    var uuids: [String] = []
    /// `auto`, `bredr` or `le`.
    var transport = "auto"
    /// Lowest RSSI reported, if set.
    var rssi: Int16?
    /// A prefix of the address or name, if set.
    var pattern = ""
    /// Whether every advertisement is reported (PropertiesChanged on RSSI each time).
    var duplicateData = true

    /// The filter keys `GetDiscoveryFilters` lists.
    static let keys = ["UUIDs", "RSSI", "Pathloss", "Transport", "DuplicateData", "Discoverable", "Pattern"]

    /// Parses the `a{sv}` argument; unknown keys or wrong types are `org.bluez.Error.InvalidArguments`.
    init(_ value: DBusValue) throws(DBusError) {
        guard let entries = value.stringKeyedDictionary else {
            throw BlueZNames.error("InvalidArguments", "Invalid arguments in method call")
        }
        for (key, raw) in entries {
            let inner = raw.unwrappingVariant
            switch key {
            case "UUIDs":
                guard let strings = inner.stringArrayValue else { throw Self.invalid }
                uuids = try strings.map { (text) throws(DBusError) in
                    guard let uuid = Self.fullUUID(text) else { throw Self.invalid }
                    return uuid
                }
            case "RSSI":
                guard case .int16(let number) = inner else { throw Self.invalid }
                rssi = number
            case "Pathloss":
                guard case .uint16 = inner else { throw Self.invalid }
            case "Transport":
                guard let text = inner.stringValue, ["auto", "bredr", "le"].contains(text) else { throw Self.invalid }
                transport = text
            case "DuplicateData":
                guard let flag = inner.boolValue else { throw Self.invalid }
                duplicateData = flag
            case "Discoverable":
                guard inner.boolValue != nil else { throw Self.invalid }
            case "Pattern":
                guard let text = inner.stringValue else { throw Self.invalid }
                pattern = text
            default:
                throw Self.invalid
            }
        }
    }

    /// No filter.
    init() {}

    private static var invalid: DBusError { BlueZNames.error("InvalidArguments", "Invalid arguments in method call") }

    /// `fe59` or `0000fe59` → the 128-bit form in lower case; a 128-bit UUID as given, lower-cased.
    static func fullUUID(_ text: String) -> String? {
        let lower = text.lowercased()
        let hexDigits = Set("0123456789abcdef")
        if lower.count == 4 || lower.count == 8, lower.allSatisfy({ hexDigits.contains($0) }) {
            return String(repeating: "0", count: 8 - lower.count) + lower + "-0000-1000-8000-00805f9b34fb"
        }
        let groups = lower.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12], groups.allSatisfy({ $0.allSatisfy { hexDigits.contains($0) } })
        else { return nil }
        return lower
    }

    /// Whether a device advertising `serviceUUIDs` (any case) with `name` and `rssi` passes.
    func admits(address: String, name: String, serviceUUIDs: [String], rssi: Int16) -> Bool {
        if transport == "bredr" { return false }
        if let minimum = self.rssi, rssi < minimum { return false }
        if !pattern.isEmpty, !address.hasPrefix(pattern), !name.hasPrefix(pattern) { return false }
        if uuids.isEmpty { return true }
        let advertised = Set(serviceUUIDs.map { $0.lowercased() })
        return uuids.contains { advertised.contains($0) }
    }
}
