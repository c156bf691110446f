import DFUCore
import DFUCrypto
import DFUFormats
public import DFUSimPeripheral
import DFUSimulator
import SystemSupport

/// `dfu-sim image`: writes a synthetic application image of any size and its unsigned Secure
/// init packet, for uploads to the simulated targets (`dfu upload app.bin --type application
/// --init app.dat`) at sizes no fixture package has.
public enum SyntheticImageCommand {
    /// The usage text.
    public static let usage = """
        usage: dfu-sim image --size BYTES --bin FILE --dat FILE [--sd-req ID]

        Writes a synthetic application image of BYTES bytes (seeded pseudo-random, the same for the
        same size) to FILE.bin and its unsigned Secure init packet (SHA-256, application version 1,
        hardware version 52) to FILE.dat. The simulated Secure bootloaders take it unless their
        device specification says signature=required.

          --size BYTES   the image size: a multiple of 4, from 4 to 1048576
          --bin FILE     where the image goes
          --dat FILE     where the init packet goes
          --sd-req ID    the SoftDevice the init packet requires (default 0xB7, as the fixtures)
          -h, --help     this text
        """

    /// What to write.
    public struct Request: Sendable, Equatable {
        /// The image size in bytes.
        public var size: Int
        /// The image's path.
        public var binPath: String
        /// The init packet's path.
        public var datPath: String
        /// The required SoftDevice ID.
        public var softdeviceRequirement: UInt32 = 0xB7
    }

    /// Parses `arguments` (after `image`); nil when help was asked for.
    public static func parse(_ arguments: [String]) throws(PeripheralError) -> Request? {
        var size: Int?
        var binPath: String?
        var datPath: String?
        var softdevice: UInt32 = 0xB7
        var index = 0
        func value(_ option: String) throws(PeripheralError) -> String {
            index += 1
            guard index < arguments.count else { throw .usage("\(option) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-h", "--help": return nil
            case "--size":
                let text = try value(argument)
                guard let bytes = Int(text), bytes >= 4, bytes <= 1 << 20, bytes % 4 == 0 else {
                    throw .usage("--size takes a multiple of 4 from 4 to 1048576, not \"\(text)\"")
                }
                size = bytes
            case "--bin": binPath = try value(argument)
            case "--dat": datPath = try value(argument)
            case "--sd-req":
                let text = try value(argument)
                let digits = text.hasPrefix("0x") || text.hasPrefix("0X") ? String(text.dropFirst(2)) : text
                guard let id = UInt32(digits, radix: 16), id <= 0xFFFF else {
                    throw .usage("--sd-req takes a SoftDevice ID such as 0xB7, not \"\(text)\"")
                }
                softdevice = id
            default: throw .usage("unknown option \(argument)")
            }
            index += 1
        }
        guard let size else { throw .usage("--size is required") }
        guard let binPath else { throw .usage("--bin is required") }
        guard let datPath else { throw .usage("--dat is required") }
        var request = Request(size: size, binPath: binPath, datPath: datPath)
        request.softdeviceRequirement = softdevice
        return request
    }

    /// The image for `size`: xorshift32 bytes seeded with the size, so every run agrees.
    public static func image(size: Int) -> [UInt8] {
        var state = UInt32(truncatingIfNeeded: size) | 1
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        for _ in 0..<size {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            bytes.append(UInt8(truncatingIfNeeded: state))
        }
        return bytes
    }

    /// The unsigned Secure init packet for `image`.
    public static func initPacket(for image: [UInt8], softdeviceRequirement: UInt32) -> [UInt8] {
        let hash = Array(SHA256.digest(image).reversed())
        return SecureInitCommand(
            kind: .application, image: image, softdeviceRequirements: [softdeviceRequirement], hash: hash
        ).packet
    }

    /// Runs the command; returns the exit status (0 when written, 1 on a write failure, 64 on a usage error).
    public static func run(arguments: [String]) -> Int32 {
        let request: Request
        do {
            guard let parsed = try parse(arguments) else {
                print(usage)
                return 0
            }
            request = parsed
        } catch {
            printError("dfu-sim image: \(error)\n\(usage)\n")
            return 64
        }
        let image = image(size: request.size)
        for (path, bytes) in [
            (request.binPath, image),
            (request.datPath, initPacket(for: image, softdeviceRequirement: request.softdeviceRequirement)),
        ] {
            do {
                // A temporary file beside it, then renamed: never through a planted link, never
                // blocked on a FIFO, never half-written.
                try FileWriter.writeAtomically(bytes, to: path)
            } catch {
                printError("dfu-sim image: \(error.description)\n")
                return 1
            }
        }
        return 0
    }

    private static func printError(_ text: String) {
        try? FileDescriptor.standardError.writeAll(text.utf8)
    }

}
