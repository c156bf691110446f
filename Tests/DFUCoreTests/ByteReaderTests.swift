import DFUCore
import Testing
import DFUFormats

@Suite struct ByteReaderTests {
    @Test func readsLittleEndianIntegersInOrder() {
        var reader = ByteReader([0x01, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12])
        #expect(reader.readInteger(as: UInt8.self) == 0x01)
        #expect(reader.readInteger(as: UInt16.self) == 0x1234)
        #expect(reader.readInteger(as: UInt32.self) == 0x1234_5678)
        #expect(reader.readableBytes == 0)
    }

    @Test func shortReadReturnsNilAndConsumesNothing() {
        var reader = ByteReader([0xAA, 0xBB, 0xCC])
        #expect(reader.readInteger(as: UInt32.self) == nil)
        #expect(reader.readBytes(length: 4) == nil)
        #expect(reader.readSlice(length: 4) == nil)
        #expect(reader.readBytes(length: -1) == nil)
        #expect(reader.readableBytes == 3)
        #expect(reader.readBytes(length: 3) == [0xAA, 0xBB, 0xCC])
        #expect(reader.readByte() == nil)
    }

    @Test func getDoesNotMoveTheReaderIndex() {
        let reader = ByteReader([0x00, 0x10, 0x20])
        #expect(reader.getInteger(at: 1, as: UInt16.self) == 0x2010)
        #expect(reader.getInteger(at: 2, as: UInt16.self) == nil)
        #expect(reader.getInteger(at: -1, as: UInt8.self) == nil)
        #expect(reader.readerIndex == 0)
    }

    @Test func worksOnSlicesWithTheirOwnIndices() {
        let bytes: [UInt8] = [9, 9, 0x01, 0x02, 0x03, 0x04]
        var reader = ByteReader(bytes[2...])
        #expect(reader.readInteger(as: UInt16.self) == 0x0201)
        #expect(reader.bytesRead == 2)
        #expect(reader.readSlice(length: 2)?.startIndex == 4)
    }

    @Test func readsBigEndianWhenToldSo() {
        // An MCUmgr-style header field: length 0x0102 most significant byte first.
        var reader = ByteReader([0x01, 0x02, 0x00, 0x00, 0x00, 0x2A])
        #expect(reader.readInteger(endianness: .big, as: UInt16.self) == 0x0102)
        #expect(reader.getInteger(at: 2, endianness: .big, as: UInt32.self) == 0x2A)
        #expect(reader.getInteger(at: 2, endianness: .little, as: UInt32.self) == 0x2A00_0000)
    }
}

@Suite struct ByteWriterTests {
    @Test func writesLittleEndianByDefaultAndBigWhenToldSo() {
        var writer = ByteWriter()
        #expect(writer.writeInteger(UInt8(0x01)) == 1)
        #expect(writer.writeInteger(UInt32(0x1234_5678)) == 4)
        #expect(writer.writeInteger(UInt16(0x0102), endianness: .big) == 2)
        #expect(writer.writeBytes([0xAA, 0xBB]) == 2)
        #expect(writer.bytes == [0x01, 0x78, 0x56, 0x34, 0x12, 0x01, 0x02, 0xAA, 0xBB])
        #expect(writer.writerIndex == 9)
    }

    @Test func whatTheWriterWritesTheReaderReadsBack() {
        var writer = ByteWriter()
        writer.writeInteger(UInt64(0x0102_0304_0506_0708), endianness: .big)
        writer.writeInteger(Int16(-2))
        var reader = ByteReader(writer.bytes)
        #expect(reader.readInteger(endianness: .big, as: UInt64.self) == 0x0102_0304_0506_0708)
        #expect(reader.readInteger(as: Int16.self) == -2)
        #expect(reader.readableBytes == 0)
    }
}

@Suite struct CRC16Tests {
    @Test func checkValueOfTheStandardTestStringIs29B1() {
        #expect(CRC16.checksum(Array("123456789".utf8)) == 0x29B1)
    }

    /// Contiguous bytes (an array) take the unchecked pass over the table; any other sequence the element-wise one.
    @Test func contiguousAndNonContiguousBytesGiveTheSameChecksum() {
        #expect(CRC16.checksum("123456789".utf8.lazy.map { $0 }) == 0x29B1)
        let bytes = TestPackages.image(5000)
        #expect(CRC16.checksum(bytes.lazy.map { $0 }) == CRC16.checksum(bytes))
    }

    @Test func checksumOfNoBytesIsTheInitialValue() {
        #expect(CRC16.checksum([UInt8]()) == 0xFFFF)
    }

    @Test func runningChecksumEqualsOneShotChecksum() {
        let bytes = TestPackages.image(5000)
        var running = CRC16()
        running.update(bytes[..<777])
        running.update(bytes[777...])
        #expect(running.value == CRC16.checksum(bytes))
    }
}
