/// A 48-bit Bluetooth device address, kept as printed: `AA:BB:CC:DD:EE:FF`, most significant byte first.
public struct DFUDeviceAddress: Sendable, Hashable, CustomStringConvertible {
    /// The six bytes as printed (index 5 is the least significant byte, the last pair).
    public let bytes: [UInt8]

    /// Makes an address from six bytes in printed order; nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 6 else { return nil }
        self.bytes = bytes
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (case-insensitive, `:` or `-` separators).
    public init?(_ text: String) {
        let pairs = text.split(whereSeparator: { $0 == ":" || $0 == "-" })
        guard pairs.count == 6 else { return nil }
        var parsed: [UInt8] = []
        for pair in pairs {
            guard pair.count == 2, let byte = UInt8(pair, radix: 16) else { return nil }
            parsed.append(byte)
        }
        bytes = parsed
    }

    /// The address a non-bonded Secure bootloader advertises with: the least significant byte
    /// (the last pair) plus one, wrapping 0xFF to 0x00 without carrying into the next byte.
    public var bootloaderAddress: DFUDeviceAddress {
        var next = bytes
        next[5] = next[5] &+ 1
        return DFUDeviceAddress(uncheckedBytes: next)
    }

    /// The address the Bare Metal option's firmware loader advertises with: bit 0 of the least significant byte
    /// (the last pair) inverted (`ble_change_address` in sdk-nrf-bm `applications/firmware_loader/ble_mcumgr`,
    /// so that a host does not take the loader for the application it cached and bonded with).
    public var firmwareLoaderAddress: DFUDeviceAddress {
        var flipped = bytes
        flipped[5] ^= 0x01
        return DFUDeviceAddress(uncheckedBytes: flipped)
    }

    private init(uncheckedBytes: [UInt8]) { bytes = uncheckedBytes }

    /// `AA:BB:CC:DD:EE:FF`.
    public var description: String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: ":")
    }
}
