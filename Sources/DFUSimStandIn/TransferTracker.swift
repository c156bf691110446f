import DFUCrypto

/// Follows a Secure DFU transfer from both sides, to count executed objects and checksum
/// mismatches: what the client sent (packet writes, per object type) against the offset and
/// CRC-32 the target reports.
struct TransferTracker: Sendable {
    /// What a control point response meant.
    enum Finding: Sendable, Equatable {
        /// An Execute succeeded.
        case executed
        /// A Calculate Checksum answer disagreed with the bytes the client sent.
        case checksumMismatch
    }

    private var currentType: UInt8 = 0
    private var command: [UInt8] = []
    private var data: [UInt8] = []
    /// Whether `data` holds everything since the start of the image (false after a resume of a
    /// transfer begun before the tracker saw it).
    private var dataKnown = true
    private var executedDataOffset = 0
    private var lastRequest: UInt8 = 0

    /// A control point request the client wrote.
    mutating func request(_ bytes: [UInt8]) {
        guard let op = bytes.first else { return }
        lastRequest = op
        switch op {
        case 0x01 where bytes.count >= 2:
            currentType = bytes[1]
            if currentType == 0x01 {
                command = []
            } else if currentType == 0x02, dataKnown, data.count > executedDataOffset {
                data.removeLast(data.count - executedDataOffset)
            }
        case 0x06 where bytes.count >= 2:
            currentType = bytes[1]
        default:
            break
        }
    }

    /// Bytes the client wrote to the packet characteristic.
    mutating func packet(_ bytes: [UInt8]) {
        if currentType == 0x01 {
            command += bytes
        } else if currentType == 0x02 {
            data += bytes
        }
    }

    /// A control point notification from the target.
    mutating func response(_ bytes: [UInt8]) -> Finding? {
        guard bytes.count >= 3, bytes[0] == 0x60, bytes[2] == 0x01 else { return nil }
        switch bytes[1] {
        case 0x04:
            if currentType == 0x01 {
                data = []
                dataKnown = true
                executedDataOffset = 0
            } else if currentType == 0x02 {
                executedDataOffset = data.count
            }
            return .executed
        case 0x03 where bytes.count >= 11:
            let offset = Self.uint32(bytes, at: 3)
            let crc = UInt32(Self.uint32(bytes, at: 7))
            let stream = currentType == 0x01 ? command : data
            guard currentType == 0x01 || dataKnown, offset <= stream.count else { return nil }
            return CRC32.checksum(stream[0..<offset]) == crc ? nil : .checksumMismatch
        case 0x06 where bytes.count >= 15 && currentType == 0x02:
            let maximum = Self.uint32(bytes, at: 3)
            let offset = Self.uint32(bytes, at: 7)
            if dataKnown, offset <= data.count {
                data.removeLast(data.count - offset)
            } else if offset > 0 {
                dataKnown = false
            } else {
                data = []
                dataKnown = true
            }
            executedDataOffset = maximum > 0 ? offset / maximum * maximum : offset
            return nil
        default:
            return nil
        }
    }

    private static func uint32(_ bytes: [UInt8], at index: Int) -> Int {
        Int(bytes[index]) | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2]) << 16 | Int(bytes[index + 3]) << 24
    }
}
