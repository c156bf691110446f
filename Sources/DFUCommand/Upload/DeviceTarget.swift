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
    /// UTF-8 byte order mark ignored.
    static func list(fromFile text: String) -> [DeviceTarget] {
        let body = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        return body.split(whereSeparator: \.isNewline).compactMap { line in
            let entry = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = String(entry.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
            return trimmed.isEmpty ? nil : DeviceTarget(trimmed)
        }
    }
}
