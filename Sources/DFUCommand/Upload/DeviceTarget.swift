import DFUCore

/// One device to update, as named on the command line: an address or an advertised name.
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

    /// Which advertisement to connect to. An address also matches its bootloader's address (last
    /// byte + 1), so running the same command again after an interrupted upload finds a device
    /// left in its bootloader and resumes.
    var selector: DFUDeviceSelector {
        if let address { return DFUDeviceSelector(addresses: [address, address.bootloaderAddress]) }
        return DFUDeviceSelector(name: label)
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
