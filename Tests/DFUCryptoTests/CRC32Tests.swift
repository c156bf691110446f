import DFUCrypto
import Testing

@Suite struct CRC32Tests {
    @Test func checkValueOfTheStandardTestStringIsCBF43926() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    @Test func checksumOfNoBytesIsZero() {
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test func runningChecksumEqualsOneShotChecksum() {
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var running = CRC32()
        running.update(bytes[0..<1234])
        running.update(bytes[1234...])
        #expect(running.value == CRC32.checksum(bytes))
    }
}

@Suite struct SHA256Tests {
    @Test func digestOfABCMatchesFIPS180Example() {
        let hex = SHA256.digest(Array("abc".utf8)).map { String($0, radix: 16).leftPadded }.joined()
        #expect(hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}

extension String {
    var leftPadded: String { count == 1 ? "0" + self : self }
}
