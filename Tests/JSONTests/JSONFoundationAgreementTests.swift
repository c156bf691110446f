import Foundation
import JSON
import Testing

/// `dfu`'s JSON lines were written by Foundation's JSONEncoder (keys sorted, slashes as they are) before json-c
/// wrote them: the same values give the same text, checked against Foundation as an independent writer.
@Suite struct JSONFoundationAgreementTests {
    struct Line: Encodable {
        var event: String
        var device: String?
        var elapsed: Double?
        var bytes: Int?
        var exitCode: Int32?
        var failed: [String]?
        var images: [Image]?
        struct Image: Encodable { var image: Int; var state: String }
        enum CodingKeys: String, CodingKey { case event, device, elapsed, bytes, exitCode = "exit_code", failed, images }
    }

    static let lines: [Line] = [
        Line(event: "summary", exitCode: 0, failed: []),
        Line(event: "progress", device: "DfuTarg", elapsed: 1.234, bytes: 4096),
        Line(event: "progress", device: "C0:FF:EE:00:00:01", elapsed: 2, bytes: 0),
        Line(event: "done", device: "a/b \"quoted\" back\\slash", elapsed: 0.001, exitCode: 65),
        Line(event: "log", device: "caf\u{E9} \u{1F600} \u{2028}", elapsed: 1234567.5),
        Line(event: "done", images: [Line.Image(image: 0, state: "confirmed"), Line.Image(image: 1, state: "test")]),
    ]

    @Test(arguments: lines.indices)
    func sameTextAsFoundationsEncoder(_ index: Int) throws {
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let expected = String(decoding: try foundation.encode(Self.lines[index]), as: UTF8.self)
        #expect(try JSONValueEncoder().encode(Self.lines[index]).serialized() == expected)
    }
}
