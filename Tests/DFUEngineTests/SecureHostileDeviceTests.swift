import DFUCore
import DFUCrypto
import Testing

/// A Secure DFU bootloader that answers Select with a maximum object size no bootloader has: the update fails
/// naming it (``SecureFieldRange``), before any object is sized by it.
@Suite struct SecureHostileDeviceTests {
    typealias Base = SecureDFUStateMachineTests

    static func selectAnswer(maxSize: UInt32) -> [UInt8] {
        [0x60, 0x06, 0x01] + Base.le32(maxSize) + Base.le32(0) + Base.le32(0)
    }

    @Test(arguments: [UInt32(0), UInt32(1 << 20) + 1, UInt32.max])
    func aCommandObjectSizeOutOfRangeFailsNamingIt(maxSize: UInt32) {
        var machine = Base.machine()
        _ = Base.feed(&machine, .start)
        #expect(Base.feed(&machine, .received([0x60, 0x02, 0x01])) == .send(.select(.command)))
        let action = Base.feed(&machine, .received(Self.selectAnswer(maxSize: maxSize)))
        #expect(action == .fail(.outOfRange(field: "max object size", value: String(maxSize), allowed: "1…1048576")))
    }

    @Test(arguments: [UInt32(0), UInt32(1 << 20) + 1, UInt32.max])
    func aDataObjectSizeOutOfRangeFailsNamingIt(maxSize: UInt32) {
        var machine = Base.machine()
        _ = Base.feed(&machine, .start)
        _ = Base.feed(&machine, .received([0x60, 0x02, 0x01]))
        _ = Base.feed(&machine, .received(Self.selectAnswer(maxSize: 256)))
        _ = Base.feed(&machine, .received([0x60, 0x01, 0x01]))
        _ = Base.feed(&machine, .packetsWritten)
        _ = Base.feed(&machine, .received([0x60, 0x03, 0x01] + Base.le32(5) + Base.le32(CRC32.checksum(Base.initPacket))))
        #expect(Base.feed(&machine, .received([0x60, 0x04, 0x01])) == .send(.select(.data)))
        let action = Base.feed(&machine, .received(Self.selectAnswer(maxSize: maxSize)))
        #expect(action == .fail(.outOfRange(field: "max object size", value: String(maxSize), allowed: "1…1048576")))
    }

    @Test func oneMebibyteIsTheLargestObjectSizeTaken() {
        var machine = Base.machine()
        _ = Base.feed(&machine, .start)
        _ = Base.feed(&machine, .received([0x60, 0x02, 0x01]))
        #expect(Base.feed(&machine, .received(Self.selectAnswer(maxSize: 1 << 20))) == .send(.create(.command, size: 5)))
    }
}
