@testable import DFUCommand
import DFUSimulator
import Foundation
import TestSupport
import Testing

/// One name per option across commands, help that lists what a command can do, and shell
/// completion that works in a plain bash.
@Suite struct ConsistencyTests {
    static func exitCodes(inHelpOf command: String) async -> [String] {
        let run = await RecordedRun.dfu(command, "--help")
        let section = run.output.components(separatedBy: "Exit codes:\n").last ?? ""
        return section.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    @Test func eachCommandsHelpListsOnlyTheExitCodesItCanReturn() async {
        #expect(await Self.exitCodes(inHelpOf: "inspect") == ["0", "64", "65", "66", "70", "71", "74", "130"])
        #expect(await Self.exitCodes(inHelpOf: "scan") == ["0", "64", "69", "70", "71", "74", "78", "130"])
        #expect(await Self.exitCodes(inHelpOf: "upload") == ["0", "1", "2", "64", "65", "66", "69", "70", "71", "74", "75", "78", "130"])
    }

    @Test func theOverviewListsHelp() async {
        let run = await RecordedRun.dfu("--help")
        #expect(run.output.contains("\n  help           show the help of a command"))
    }

    @Test func theScanTimeoutHasOneNameAndShortFormEverywhere() async {
        for command in ["scan", "trigger", "upload"] {
            let run = await RecordedRun.dfu(command, "--help")
            #expect(run.output.contains("-t, --scan-timeout SECONDS"), "\(command)")
        }
        let scan = await RecordedRun.dfu("scan", "-t", "0.1")
        #expect(scan.code == .unavailable, "-t is accepted: \(scan.error)")
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/bash")))
    func completionOffersDirectoriesAndPackagesWithoutExtglob() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dfu-completion-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("builds"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["app.zip", "notes.txt", "key.pem"] {
            _ = FileManager.default.createFile(atPath: folder.appendingPathComponent(name).path, contents: Data())
        }
        let text = try await Self.withCompletion(in: folder, """
            COMP_WORDS=(dfu upload ''); COMP_CWORD=2; _dfu; echo "package: ${COMPREPLY[*]}"
            COMP_WORDS=(dfu upload app.zip --key ''); COMP_CWORD=4; _dfu; echo "key: ${COMPREPLY[*]}"
            """)
        #expect(text == "package: builds app.zip\nkey: builds key.pem\n", "\(text)")
    }

    /// Runs `script` in a plain bash (no rc files, extglob off) after sourcing docs/dfu.bash-completion,
    /// in `folder` when given; returns its output. Waits on a thread of its own.
    static func withCompletion(in folder: URL? = nil, _ script: String) async throws -> String {
        try await offThePool { try withCompletionBlocking(in: folder, script) }
    }

    private static func withCompletionBlocking(in folder: URL?, _ script: String) throws -> String {
        let completion = TestData.root.appendingPathComponent("docs/dfu.bash-completion").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        if let folder { process.currentDirectoryURL = folder }
        process.arguments = ["--norc", "--noprofile", "-c", "shopt -u extglob; source '\(completion)'\n" + script]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }
}

/// The bash completion offers exactly the options each command accepts.
@Suite struct CompletionOptionTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/bash")))
    func completionOffersEveryOptionOfEachCommandAndNoOther() async throws {
        var script = ""
        for command in DFUCommand.subcommands {
            let words = "dfu " + command.name + " --"
            let index = words.split(separator: " ").count - 1
            script += "COMP_WORDS=(\(words)); COMP_CWORD=\(index); _dfu; echo \"\(command.name): ${COMPREPLY[*]}\"\n"
        }
        let text = try await ConsistencyTests.withCompletion(script)
        let offered = Dictionary(uniqueKeysWithValues: text.split(separator: "\n").compactMap { line -> (String, Set<String>)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), Set(line[line.index(after: colon)...].split(separator: " ").map(String.init)))
        })
        for command in DFUCommand.subcommands {
            let accepted = Set(command.options.map { "--" + $0.name } + ["--help"])
            let completed = offered[command.name] ?? []
            #expect(completed == accepted,
                    "dfu \(command.name): missing \(accepted.subtracting(completed).sorted()), extra \(completed.subtracting(accepted).sorted())")
        }
    }
}

/// `-q` and `-v` where they make sense: trigger and scan too.
@Suite struct QuietAndVerboseTests {
    @Test func triggerVerboseShowsTheConnectionsAndQuietOnlyTheAnswer() async {
        let device = SimulatedRig.firstAddress
        let verbose = await SimulatedRig([device: SimulatedRig.secureDevice()]).dfu(["trigger", "-d", device, "-v"])
        #expect(verbose.code == .success, "\(verbose.error)")
        #expect(verbose.error.contains("\(device): connected to \(device)"), "\(verbose.error)")
        let rig = SimulatedRig([device: SimulatedPeripheral(profile: SimulatedRig.secureDevice().profile, startInBootloader: true)])
        let quiet = await rig.dfu(["trigger", "-d", device, "-q"])
        #expect(quiet.code == .success, "\(quiet.error)")
        #expect(quiet.error.isEmpty, "no 'already in its bootloader' note: \(quiet.error)")
    }

    @Test func scanQuietSaysNothingWhenNothingIsFound() async {
        let run = await SimulatedRig([:]).dfu(["scan", "-q", "-t", "0.1"])
        #expect(run.code == .success)
        #expect(run.error.isEmpty && run.output.isEmpty, "\(run.error)")
    }
}
