import CZlib

/// A minimal, test-only ZIP reader (stored and deflated entries, via zlib's raw inflate), so the
/// engine tests can open Nordic's sample packages before the package reader is merged.
struct SampleZip {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private(set) var entries: [String: [UInt8]] = [:]

    init(bytes: [UInt8]) throws {
        func u16(_ at: Int) throws -> Int {
            guard at >= 0, at + 2 <= bytes.count else { throw Failure(description: "truncated at \(at)") }
            return Int(bytes[at]) | Int(bytes[at + 1]) << 8
        }
        func u32(_ at: Int) throws -> Int { try u16(at) | (u16(at + 2) << 16) }
        // End of central directory: signature 50 4B 05 06, searched backwards.
        var end = bytes.count - 22
        while end >= 0, try u32(end) != 0x0605_4B50 { end -= 1 }
        guard end >= 0 else { throw Failure(description: "no end of central directory") }
        let count = try u16(end + 10)
        var at = try u32(end + 16)
        for _ in 0..<count {
            guard try u32(at) == 0x0201_4B50 else { throw Failure(description: "bad central directory entry") }
            let method = try u16(at + 10)
            let compressed = try u32(at + 20)
            let size = try u32(at + 24)
            let nameLength = try u16(at + 28)
            let extra = try u16(at + 30)
            let comment = try u16(at + 32)
            let local = try u32(at + 42)
            guard at + 46 + nameLength <= bytes.count else { throw Failure(description: "truncated name") }
            let name = String(decoding: bytes[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
            at += 46 + nameLength + extra + comment
            let dataStart = try local + 30 + u16(local + 26) + u16(local + 28)
            guard dataStart + compressed <= bytes.count else { throw Failure(description: "truncated data of \(name)") }
            let data = Array(bytes[dataStart..<(dataStart + compressed)])
            switch method {
            case 0: entries[name] = data
            case 8: entries[name] = try Self.inflate(data, size: size)
            default: throw Failure(description: "method \(method) of \(name)")
            }
        }
    }

    private static func inflate(_ data: [UInt8], size: Int) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: max(size, 1))
        var stream = z_stream()
        // -15: a raw deflate stream, as ZIP stores it.
        guard inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(description: "inflateInit2 failed")
        }
        defer { inflateEnd(&stream) }
        var input = data
        let status = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = UInt32(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = UInt32(outputBuffer.count)
                return CZlib.inflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END, Int(stream.total_out) == size else {
            throw Failure(description: "inflate failed (\(status))")
        }
        return Array(output.prefix(size))
    }
}
