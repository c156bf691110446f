import DFUCommand
import DFUCore
import Testing

/// Text dfu did not write itself (an advertised name, a file name) reaches the terminal with its
/// control characters escaped: it cannot set the title, clear the screen or move the cursor.
@Suite struct UntrustedTextTests {
    /// OSC 0 (set the window title, ended by BEL) then CSI 2 J (clear the screen).
    static let hostile = "Evil\u{1B}]0;pwned\u{07}\u{1B}[2J\u{9B}31m"

    static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
    }

    @Test func anAdvertisedNameWithEscapeSequencesIsShownEscapedInScan() async {
        let heard = Advertisement(address: DFUDeviceAddress("C0:FF:EE:00:00:42").unsafelyUnwrapped, name: Self.hostile,
                                  rssi: -50, serviceUUIDs: [])
        let provider = TransportProvider { _, _ in
            TransportSession(transport: SearchingTransport(), clock: ContinuousClock())
        } scan: { _, _ in [heard] }
        let run = await RecordedRun.dfu(arguments: ["scan", "--all"], transports: provider)
        #expect(run.code == .success, "\(run.error)")
        #expect(!Self.hasControlCharacters(run.output), "\(run.output.debugDescription)")
        #expect(run.output.contains("Evil\\x1B]0;pwned\\x07\\x1B[2J\\x9B31m"))
    }

    @Test func aFileNameWithEscapeSequencesIsShownEscapedInTheErrorLine() async {
        let run = await RecordedRun.dfu("inspect", "app\u{1B}[2J.bin", "--type", "application")
        #expect(run.code == .noInput)
        #expect(run.error == "dfu: app\\x1B[2J.bin: cannot read: no such file\n")
    }

    @Test func escapingKeepsPrintableTextAndDoublesBackslashes() {
        #expect(TerminalText.escaped("Dfu12345 µ-sensor") == "Dfu12345 µ-sensor")
        #expect(TerminalText.escaped("a\\x1B") == "a\\\\x1B", "an escape cannot be faked")
        #expect(TerminalText.escaped("\u{202E}gpj.exe") == "\\u{202E}gpj.exe", "no right-to-left override")
    }
}
