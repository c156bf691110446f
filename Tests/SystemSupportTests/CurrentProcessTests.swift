import Glibc
@testable import SystemSupport
import Testing

@Suite struct CurrentProcessTests {
    /// An `environ`-style list built for the test (the process's own is left alone: other tests read it meanwhile).
    private static func variables(of entries: [String]) -> [String: String] {
        var pointers: [UnsafeMutablePointer<CChar>?] = entries.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { CurrentProcess.variables(in: UnsafePointer($0)) } ?? [:]
        }
    }

    @Test func eachEntryIsSplitAtItsFirstEqualsSign() {
        let variables = Self.variables(of: ["SPLIT=a=b", "EMPTY=", "NOVALUE", "PATH=/usr/bin"])
        #expect(variables == ["SPLIT": "a=b", "EMPTY": "", "PATH": "/usr/bin"], "an entry without '=' is skipped")
    }

    @Test func anEqualsSignThatACombiningMarkFollowsStillEndsTheName() {
        // "=" + U+0338 COMBINING LONG SOLIDUS OVERLAY is one Character ("≠"), but the name still ends at the '=' byte.
        #expect(Self.variables(of: ["MARK=\u{0338}x"]) == ["MARK": "\u{0338}x"])
    }

    @Test func theProcessEnvironmentIsReadThatWay() {
        #expect(CurrentProcess.environment["PATH"] == CurrentProcess.environmentValue("PATH"))
    }
}
