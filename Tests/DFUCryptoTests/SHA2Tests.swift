import DFUCrypto
import Testing

/// The SHA-2 digests against FIPS 180-2's examples (appendices B and C), one block, two blocks and a million bytes,
/// and the empty message.
@Suite struct SHA2Tests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String($0, radix: 16).leftPadded }.joined() }

    /// 448 bits: two blocks of SHA-256 once padded.
    static let twoBlocks = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)

    @Test func sha256OfTheEmptyMessageTwoBlocksAndAMillionAs() {
        #expect(Self.hex(SHA256.digest([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.hex(SHA256.digest(Self.twoBlocks)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(Self.hex(SHA256.digest(million)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func sha384OfABCAndTheEmptyMessage() {
        #expect(
            Self.hex(SHA384.digest(Array("abc".utf8)[...]))
                == "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7")
        #expect(
            Self.hex(SHA384.digest([][...]))
                == "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b")
    }

    @Test func sha512OfABCAndTheEmptyMessage() {
        #expect(
            Self.hex(SHA512.digest(Array("abc".utf8)[...]))
                == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
        #expect(
            Self.hex(SHA512.digest([][...]))
                == "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
                + "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e")
    }

    /// A slice that does not start at index 0 (an image's payload inside its file) is hashed from its own start.
    @Test func aSliceIsHashedFromItsOwnStart() {
        let framed = Array("xxabc".utf8)
        #expect(SHA384.digest(framed[2...]) == SHA384.digest(Array("abc".utf8)[...]))
        #expect(SHA512.digest(framed[2...]) == SHA512.digest(Array("abc".utf8)[...]))
    }
}
