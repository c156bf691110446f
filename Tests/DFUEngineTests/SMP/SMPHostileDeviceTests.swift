import CBOR
@testable import DFUCore
import Testing

/// An SMP server that sends numbers outside their fields' ranges, or keeps moving the upload offset back: the
/// device's update fails with one error naming what it did, and nothing in `dfu` traps or loops for ever.
@Suite struct SMPHostileDeviceTests {
    static let image = SMPUploadMachineTests.image(3_664, seed: 7)

    static func run(_ configure: (ScriptedSMPServer) -> Void) -> SMPTestRun {
        let server = SMPUploadMachineTests.server(for: [image])
        configure(server)
        return SMPTestRun(plan: SMPUploadPlan(images: [image]), server: server)
    }

    static func outOfRangeField(_ result: SMPTestRun.Result) -> (field: String, value: String)? {
        guard case .failed(.outOfRange(let field, let value, _)) = result else { return nil }
        return (field, value)
    }

    @Test(arguments: [Int.min, -1, 0, 65_536, Int.max])
    func aBufferCountOutOfRangeFailsTheUpdateNamingBufCount(count: Int) {
        let run = Self.run { $0.bufCount = count }
        let failure = Self.outOfRangeField(run.result)
        #expect(failure?.field == "buf_count", "\(run.result)")
        #expect(failure?.value == String(count))
    }

    @Test(arguments: [Int.min, -1, 0, 63, 65_536, Int.max])
    func aBufferSizeOutOfRangeFailsTheUpdateNamingBufSize(size: Int) {
        let run = Self.run { $0.bufSize = size }
        let failure = Self.outOfRangeField(run.result)
        #expect(failure?.field == "buf_size", "\(run.result)")
        #expect(failure?.value == String(size))
    }

    @Test func theEdgesOfTheParameterRangesAreAccepted() {
        #expect(Self.run { $0.bufCount = 1 }.result == .completed)
        #expect(Self.run { $0.bufCount = 65_535 }.result == .completed)
        #expect(Self.run { $0.bufSize = 65_535 }.result == .completed)
    }

    @Test func anOutOfRangeNumberIsOneLineNamingTheFieldTheValueAndTheRange() {
        let error = DFUError.outOfRange(field: "buf_count", value: "-9223372036854775808", allowed: "1…65535")
        #expect(error.description.contains("buf_count -9223372036854775808"))
        #expect(error.description.contains("1…65535"))
        #expect(!error.description.contains("\n"))
    }

    @Test func aDeviceThatKeepsMovingTheOffsetBackFailsAfterFourTimes() {
        let run = Self.run { $0.lyingOffset = true }
        #expect(run.result == .failed(.offsetMovedBack(image: 0, times: SMPUploadMachine.offsetMovesBackAllowed + 1)),
                "\(run.result)")
    }

    // MARK: - Decoding

    static func frame(_ command: SMPCommand, _ body: CBOR) throws -> SMPFrame {
        try SMPFrame(operation: command.operation.response, version: .version2, group: command.group,
                     command: command.id, sequence: 1, body: body)
    }

    static func decodingError(_ command: SMPCommand, _ body: CBOR) throws -> SMPResponse.DecodingError? {
        let frame = try frame(command, body)
        do {
            _ = try SMPResponse(frame: frame, answering: command)
            return nil
        } catch {
            return error
        }
    }

    @Test func anUploadOffsetBeyond32BitsIsOutOfRange() throws {
        #expect(try Self.decodingError(.upload, .map(["off": .int(1 << 32)])) == .outOfRange(field: "off", value: "4294967296"))
        #expect(try Self.decodingError(.upload, .map(["off": .int(-1)])) == .outOfRange(field: "off", value: "-1"))
        #expect(try Self.decodingError(.upload, .map(["off": .unsigned(.max)]))
                == .outOfRange(field: "off", value: "18446744073709551615"))
        #expect(try Self.decodingError(.upload, .map(["off": .negative(.max)]))
                == .outOfRange(field: "off", value: "-18446744073709551616"))
        #expect(try Self.decodingError(.upload, .map(["off": .int(Int(UInt32.max))])) == nil)
    }

    @Test func imageListNumbersOutOfRangeAreNamed() throws {
        let entry: (Int, Int) -> CBOR = { image, slot in
            .map(["image": .int(image), "slot": .int(slot), "version": .text("1.0.0")])
        }
        #expect(try Self.decodingError(.imageState, .map(["images": .array([entry(256, 0)])]))
                == .outOfRange(field: "image", value: "256"))
        #expect(try Self.decodingError(.imageState, .map(["images": .array([entry(0, -1)])]))
                == .outOfRange(field: "slot", value: "-1"))
        #expect(try Self.decodingError(.imageState, .map(["images": .array([entry(255, 255)])])) == nil)
    }

    @Test func slotInfoSizesOutOfRangeAreNamed() throws {
        let info: (Int, Int?) -> CBOR = { size, max in
            var fields: [CBOR.Entry] = [CBOR.Entry(.text("image"), .int(0)), CBOR.Entry(.text("slots"), .array([
                .map(["slot": .int(0), "size": .int(size)]),
            ]))]
            if let max { fields.append(CBOR.Entry(.text("max_image_size"), .int(max))) }
            return .map(["images": .array([.map(fields)])])
        }
        #expect(try Self.decodingError(.slotInfo, info(1 << 32, nil)) == .outOfRange(field: "size", value: "4294967296"))
        #expect(try Self.decodingError(.slotInfo, info(4096, -5)) == .outOfRange(field: "max_image_size", value: "-5"))
        #expect(try Self.decodingError(.slotInfo, info(4096, 4096)) == nil)
    }

    @Test func anErrorCodeOutOfRangeIsNamed() throws {
        #expect(try Self.decodingError(.parameters, .map(["rc": .int(-1)])) == .outOfRange(field: "rc", value: "-1"))
        #expect(try Self.decodingError(.parameters, .map(["rc": .int(1 << 31)]))
                == .outOfRange(field: "rc", value: "2147483648"))
        #expect(try Self.decodingError(.parameters, .map(["err": .map(["group": .int(70_000), "rc": .int(1)])]))
                == .outOfRange(field: "group", value: "70000"))
    }
}
