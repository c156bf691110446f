import DFUCore
import DFUCrypto
@testable import DFUSimCommand
import DFUSimPeripheral
import DFUSimulator
import Testing

@Suite struct SyntheticImageCommandTests {
    @Test func fullCommandLineIsRead() throws {
        let request = try #require(
            try SyntheticImageCommand.parse(["--size", "204800", "--bin", "a.bin", "--dat", "a.dat", "--sd-req", "0x101"]))
        #expect(request.size == 204_800)
        #expect(request.binPath == "a.bin")
        #expect(request.datPath == "a.dat")
        #expect(request.softdeviceRequirement == 0x101)
    }

    @Test func softDeviceRequirementDefaultsToTheFixturesOne() throws {
        let request = try #require(try SyntheticImageCommand.parse(["--size", "8", "--bin", "a", "--dat", "b"]))
        #expect(request.softdeviceRequirement == 0xB7)
    }

    @Test func helpIsNotARequest() throws {
        #expect(try SyntheticImageCommand.parse(["--help"]) == nil)
    }

    @Test(arguments: [
        (["--bin", "a", "--dat", "b"], "--size is required"),
        (["--size", "8", "--dat", "b"], "--bin is required"),
        (["--size", "8", "--bin", "a"], "--dat is required"),
        (["--size", "6", "--bin", "a", "--dat", "b"], "--size takes a multiple of 4 from 4 to 1048576, not \"6\""),
        (["--size", "0", "--bin", "a", "--dat", "b"], "--size takes a multiple of 4 from 4 to 1048576, not \"0\""),
        (["--size", "2097152", "--bin", "a", "--dat", "b"], "--size takes a multiple of 4 from 4 to 1048576, not \"2097152\""),
        (["--size", "8", "--bin", "a", "--dat", "b", "--sd-req", "zz"], "--sd-req takes a SoftDevice ID such as 0xB7, not \"zz\""),
        (["--size"], "--size needs a value"),
        (["--size", "8", "--bin", "a", "--dat", "b", "--sign"], "unknown option --sign"),
    ])
    func badCommandLinesAreRefusedWithTheReason(arguments: [String], message: String) {
        #expect(throws: PeripheralError.usage(message)) { try SyntheticImageCommand.parse(arguments) }
    }

    @Test func imageIsTheSameForTheSameSizeAndDiffersForAnother() {
        let first = SyntheticImageCommand.image(size: 4096)
        #expect(first.count == 4096)
        #expect(first == SyntheticImageCommand.image(size: 4096))
        #expect(Array(SyntheticImageCommand.image(size: 4100).prefix(16)) != Array(first.prefix(16)))
        // Not a constant fill: a pseudo-random image uses most byte values.
        #expect(Set(first).count > 200)
    }

    @Test func initPacketAnnouncesTheImageWithItsReversedSHA256() throws {
        let image = SyntheticImageCommand.image(size: 1024)
        let packet = SyntheticImageCommand.initPacket(for: image, softdeviceRequirement: 0xB7)
        let command = try #require(SecureInitCommand(packet: packet))
        #expect(command.type == .application)
        #expect(command.applicationSize == 1024)
        #expect(command.softdeviceRequirements == [0xB7])
        #expect(command.hashType == .sha256)
        #expect(command.hash == Array(SHA256.digest(image).reversed()))
        #expect(command.signature == nil)
    }
}
