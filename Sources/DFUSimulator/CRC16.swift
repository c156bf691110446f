/// CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), the checksum of Legacy init packets.
///
/// Hand-written: neither zlib nor libcrypto offers this variant.
public enum CRC16 {
    /// The checksum of `bytes`; "123456789" gives 0x29B1.
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt16 {
        var crc: UInt16 = 0xFFFF
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 {
                crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
            }
        }
        return crc
    }
}
