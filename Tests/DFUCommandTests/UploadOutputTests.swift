import DFUCommand
import Foundation
import Testing

/// What `dfu upload` prints: plain lines off a terminal, live lines on one, JSON Lines with --json.
@Suite struct UploadOutputTests {
    static let device = SimulatedRig.firstAddress
    static let big = UploadCommandTests.package("secure-app-512000.zip")

    static func run(_ extra: [String], package: String = UploadCommandTests.app, environment: [String: String] = [:],
                    terminal: Bool = false, columns: Int? = nil) async -> RecordedRun {
        let rig = SimulatedRig([device: SimulatedRig.secureDevice()])
        return await rig.dfu(["upload", package, "--device", device] + extra, environment: environment,
                             errorIsTerminal: terminal, columns: columns)
    }

    /// Removes ANSI escape sequences (ESC [ … letter).
    static func stripped(_ text: String) -> String {
        var result = ""
        var escaping = false
        for character in text {
            if escaping {
                if character.isLetter { escaping = false }
            } else if character == "\u{1B}" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    @Test func plainOutputHasNoControlCharactersAndIsRateLimited() async {
        let run = await Self.run([], package: Self.big)
        #expect(run.code == .success, "\(run.error)")
        #expect(!run.error.contains("\u{1B}") && !run.error.contains("\r"))
        let progress = run.errorLines.filter { $0.contains("% ") && $0.hasSuffix("uploading") }
        // 512000 bytes take about 18 s of simulated air time: one line per 10 % plus at most one per 5 s.
        #expect(progress.count >= 10 && progress.count <= 16, "\(progress.count) lines")
        #expect(run.errorLines.contains("\(Self.device): part 1/1 validating"))
        #expect(run.output.isEmpty)
    }

    @Test func plainProgressLineShowsPartBarPercentBytesSpeedsAndETA() async throws {
        let run = await Self.run([], package: Self.big)
        let line = try #require(run.errorLines.first { $0.contains(" 50% ") })
        let pattern = #/^C0:FF:EE:00:00:01  part 1/1 \[#{10}-{10}\]  50%  \d+/512000 B  \d+\.\d kB/s \(avg \d+\.\d kB/s\)  ETA 0:\d\d  uploading$/#
        #expect(line.wholeMatch(of: pattern) != nil, "\(line)")
    }

    @Test func jsonLinesAreTheOnlyThingOnStandardOutput() async throws {
        let run = await Self.run(["--json"], package: UploadCommandTests.package("secure-sd-bl-app.zip"))
        #expect(run.code == .success, "\(run.error)")
        #expect(run.error.isEmpty)
        let lines = run.output.split(separator: "\n")
        var events: [[String: Any]] = []
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            events.append(try #require(object, "\(line)"))
        }
        let kinds = events.compactMap { $0["event"] as? String }
        #expect(kinds.count == lines.count)
        #expect(Set(kinds).isSubset(of: ["state", "progress", "log", "error", "done", "summary"]))
        #expect(events.first?["state"] as? String == "connecting")
        let states = events.filter { $0["event"] as? String == "state" }.compactMap { $0["state"] as? String }
        #expect(states.starts(with: ["connecting", "entering_bootloader", "starting", "uploading", "validating"]))
        let progress = try #require(events.last { $0["event"] as? String == "progress" && $0["part"] as? Int == 2 })
        #expect(progress["device"] as? String == Self.device)
        #expect(progress["parts"] as? Int == 2)
        #expect(progress["bytes"] as? Int == 3000)
        #expect(progress["total"] as? Int == 3000)
        // 3000 bytes take less than the two seconds a speed is measured over: no figure.
        #expect(progress["speed"] == nil && progress["average"] == nil && progress["elapsed"] is Double)
        let done = try #require(events.first { $0["event"] as? String == "done" })
        #expect(done["result"] as? String == "updated")
        #expect(done["exit_code"] as? Int == 0)
        #expect(done["parts_sent"] as? [String] == ["softdevice_bootloader", "application"])
        #expect(done["bytes"] as? Int == 20300)
        #expect(kinds.last == "summary")
        #expect(events.last?["exit_code"] as? Int == 0)
    }

    @Test func jsonWithVerboseCarriesTheTraceAsLogEvents() async {
        let run = await Self.run(["--json", "-vv"])
        let logs = run.output.split(separator: "\n").filter { $0.contains("\"event\":\"log\"") }
        #expect(logs.contains { $0.contains("\"level\":\"trace\"") && $0.contains("→ Secure DFU Control Point: Create Object (01 02 00 10 00 00)") })
        #expect(run.error.isEmpty)
    }

    @Test func quietPrintsNothingOnSuccess() async {
        let run = await Self.run(["-q"])
        #expect(run.code == .success)
        #expect(run.error.isEmpty && run.output.isEmpty)
    }

    @Test func verboseTwiceTracesEveryRequestAndResponseByName() async {
        let run = await Self.run(["-vv"])
        #expect(run.code == .success, "\(run.error)")
        for expected in ["→ Buttonless DFU without bonds: Enter Bootloader (01)",
                         "← Buttonless DFU without bonds: Enter Bootloader → success (0x01) (20 01 01)",
                         "→ Secure DFU Control Point: Set PRN (02 00 00)",
                         "→ Secure DFU Control Point: Select Object (06 01)",
                         "→ Secure DFU Control Point: Create Object (01 02 00 10 00 00)",
                         "→ Secure DFU Packet: 244 bytes of data",
                         "← Secure DFU Control Point: Calculate Checksum → success (0x01) (60 03 01",
                         "← Secure DFU Control Point: Execute → success (0x01) (60 04 01)"] {
            #expect(run.error.contains("\(Self.device): \(expected)"), "\(expected)")
        }
        let once = await Self.run(["-v"])
        #expect(!once.error.contains("Create Object"))
        #expect(once.error.contains("connected to C0:FF:EE:00:00:02"))
    }

    @Test func terminalGetsALiveColouredLine() async {
        let run = await Self.run([], package: Self.big, environment: ["TERM": "xterm-256color"], terminal: true)
        #expect(run.code == .success, "\(run.error)")
        #expect(run.error.contains("\u{1B}[1A\r\u{1B}[2K"), "redrawn in place")
        #expect(run.error.contains("\u{1B}[36muploading\u{1B}[0m"))
        #expect(run.error.contains("\u{1B}[32mdone\u{1B}[0m"))
        let screen = Self.stripped(run.error)
        // 80 columns: the 10-cell bar from start to end.
        #expect(screen.contains("part 1/1 [##########] 100%  512000/512000 B"))
        #expect(!screen.contains("[####################]"))
        #expect(screen.contains("part 1/1 [#####"))
        #expect(screen.contains(" ETA "))
        #expect(screen.contains("\(Self.device): updated in ") && screen.contains(", 512000 bytes sent at "))
    }

    @Test func noColorKeepsTheLiveLineWithoutColour() async {
        let run = await Self.run([], environment: ["TERM": "xterm", "NO_COLOR": "1"], terminal: true)
        #expect(run.error.contains("\u{1B}[2K"))
        #expect(!run.error.contains("\u{1B}[3"))
    }

    @Test func dumbTerminalGetsPlainLines() async {
        let run = await Self.run([], environment: ["TERM": "dumb"], terminal: true)
        #expect(run.code == .success)
        #expect(!run.error.contains("\u{1B}") && !run.error.contains("\r"))
        #expect(run.errorLines.first == "\(Self.device): part 1/1 connecting")
    }

    @Test func liveLinesNeverWrapOnANarrowTerminal() async {
        let run = await Self.run([], package: Self.big, environment: ["TERM": "xterm"], terminal: true, columns: 60)
        let lines = Self.stripped(run.error).split(whereSeparator: { $0 == "\n" || $0 == "\r" })
        #expect(!lines.isEmpty)
        // Every line that is redrawn fits; the result line, drawn last of all, is shown whole.
        let live = lines.filter { !$0.contains(": updated in ") }
        #expect(live.allSatisfy { $0.count < 60 }, "\(live.map(\.count).max() ?? 0)")
    }
}
