import DFUCore

/// One device, as named on the command line (`-d`, `--devices-from`): an address or an advertised name.
struct DeviceTarget: Sendable, Hashable {
    /// How the user wrote it; used as the device's label in all output.
    let label: String
    /// The address, when the user gave one.
    let address: DFUDeviceAddress?

    /// Reads `AA:BB:CC:DD:EE:FF` as an address and anything else as a name.
    init(_ text: String) {
        address = DFUDeviceAddress(text)
        label = address?.description ?? text
    }

    /// The device named `label`, now known to be at `address` (e.g. a name resolved by a first connection).
    init(label: String, address: DFUDeviceAddress) {
        self.label = label
        self.address = address
    }

    /// Which advertisement to connect to: the address given, or the name. Only the device named: the
    /// engine itself adds an nRF5 device's bootloader address (address + 1) where a DFU bootloader may
    /// stand in for it (``DFURunner``'s nRF5 updates and switches, never SMP).
    var selector: DFUDeviceSelector {
        if let address { return .address(address) }
        return DFUDeviceSelector(name: label)
    }

    /// The label, and the address connected to when that is not what the user wrote (a name, or the
    /// bootloader found at the address + 1): `Zephyr (C0:FF:EE:00:00:10)`.
    func label(connectedTo connected: DFUDeviceAddress?) -> String {
        guard let connected, connected.description != label else { return label }
        return "\(label) (\(connected))"
    }

    /// How long a device named by its advertised name is listened for before connecting, to make
    /// sure no other device advertises the same name.
    static let nameCheckScan: Duration = .seconds(2)

    /// Refuses a name more than one device advertises (every command that takes `-d NAME` asks this
    /// before connecting): listens for ``nameCheckScan`` on `adapter`. An address, a unique or absent
    /// name (the engine then reports it as not found), or a stack that cannot scan passes. `action`
    /// ends the message: "give the address of the one to \(action)".
    ///
    /// Returns the device's address: the one given, or the one address heard advertising the name (nil
    /// when none was heard, or the stack cannot scan), so that its lock is taken before connecting.
    @discardableResult
    func requireUniqueName(adapter: String?, context: CommandContext, action: String) async throws(AmbiguousNameError)
        -> DFUDeviceAddress? {
        if let address { return address }
        guard let heard = try? await context.transports.scan(adapter, Self.nameCheckScan) else { return nil }
        let named = heard.filter { $0.name == label }
        let addresses = Set(named.map(\.address.description)).sorted()
        if addresses.count > 1 { throw AmbiguousNameError(name: label, addresses: addresses, action: action) }
        return named.first?.address
    }

    /// Parses a `--devices-from` file: one address or name per line; a `#` starts a comment (a
    /// whole line or the rest of one), blank lines are skipped, surrounding spaces and a leading
    /// UTF-8 byte order mark ignored. Each entry must be an address or a name a device can have:
    /// at most 248 bytes (the Core specification's Device Name), no control characters, and no
    /// `:` unless it is a whole address (a mistyped address is not taken for a name). A file
    /// that is not such a list (a wrong path, a secret) is refused by line number, never echoed.
    static func list(fromFile text: String) throws(ListDefect) -> [DeviceTarget] {
        let body = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        var targets: [DeviceTarget] = []
        for (index, line) in body.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let entry = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = String(entry.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
            if trimmed.isEmpty { continue }
            let target = DeviceTarget(trimmed)
            if target.address == nil {
                if let reason = Self.nameDefect(trimmed) { throw ListDefect(line: index + 1, reason: reason) }
            }
            targets.append(target)
        }
        return targets
    }

    /// Why `name` cannot be a device's name, or nil.
    static func nameDefect(_ name: String) -> String? {
        if name.utf8.count > 248 { return "longer than a device name (248 bytes)" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "\u{FFFD}" }) {
            return "holds control characters or bytes that are not UTF-8"
        }
        if name.contains(":") { return "is not an address (AA:BB:CC:DD:EE:FF) and a name has no ':'" }
        return nil
    }

    /// A line of a `--devices-from` file that names no device.
    struct ListDefect: Error, Equatable {
        /// 1-based.
        let line: Int
        let reason: String
    }
}
