import CBOR
import DFUCore
import TestSupport
import Testing

/// Inputs that once made the `cbor` or `smp-frames` fuzz target crash
/// (Tests/Fixtures/fuzz-regressions/cbor, …/smp-frames), fed as those targets feed them.
@Suite struct SMPFuzzRegressionTests {
    @Test(arguments: FuzzRegressions.inputs("cbor"))
    func everyCBORRegressionDecodesOrThrows(name: String) throws {
        let bytes = try FuzzRegressions.bytes("cbor", name)
        do {
            let value = try CBOR(decoding: bytes)
            _ = try value.encoded(limits: CBORLimits(maxBytes: 1 << 20, maxDepth: 16, maxItems: 4_096))
        } catch {
            #expect(!error.description.isEmpty)
        }
    }

    @Test(arguments: FuzzRegressions.inputs("smp-frames"))
    func everySMPFramesRegressionAssemblesOrThrows(name: String) throws {
        let bytes = try FuzzRegressions.bytes("smp-frames", name)
        guard let first = bytes.first else { return }
        let piece = Int(first) % 64 + 1
        let rest = Array(bytes.dropFirst())
        var assembler = SMPFrameAssembler()
        for start in stride(from: 0, to: rest.count, by: piece) {
            do {
                for frame in try assembler.append(Array(rest[start..<min(start + piece, rest.count)])) {
                    for command in SMPCommand.allCases {
                        _ = try? SMPResponse(frame: frame, answering: command)
                    }
                }
            } catch {
                #expect(!error.description.isEmpty)
            }
        }
    }

    @Test func theRegressionsAreThere() {
        #expect(!FuzzRegressions.inputs("cbor").isEmpty)
        #expect(!FuzzRegressions.inputs("smp-frames").isEmpty)
    }
}
