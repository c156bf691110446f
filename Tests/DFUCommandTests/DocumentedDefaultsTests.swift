@testable import DFUCommand
import DFUCore
import Foundation
import Testing

/// Each default is defined once: the engine's in `DFUOptions()`, the command line's own (`--parallel`,
/// `dfu scan`'s listening time, `pkg generate`'s nrfutil values) in their command. `--help` reads them,
/// and every place README.md, docs/*.md and the man page state one is checked against them here,
/// as are the exit codes docs/cli.md and the man page list.
@Suite struct DocumentedDefaultsTests {
    /// `(command, option) → default` as `--help` states it, for every option that has one.
    static let stated: [String: [String: String]] = {
        var table: [String: [String: String]] = [:]
        for command in DFUCommand.subcommands {
            for option in command.options {
                if let value = option.defaultValue { table[command.name, default: [:]][option.name] = value }
            }
        }
        return table
    }()

    @Test func helpStatesTheEngineDefaultsOfDFUOptions() async {
        let defaults = DFUOptions()
        let upload = Self.stated["upload"] ?? [:]
        #expect(upload["prn"] == String(defaults.packetReceiptNotifications))
        #expect(upload["scope"] == defaults.scope.rawValue)
        #expect(upload["scan-timeout"] == String(defaults.scanTimeout.components.seconds))
        #expect(upload["connect-timeout"] == String(defaults.connectTimeout.components.seconds))
        #expect(upload["retries"] == String(defaults.reconnectAttempts))
        #expect(upload["object-delay"] == "0" && defaults.objectDelay == .zero)
        #expect(upload["parallel"] == "\(UploadSettings.defaultParallelPerAdapter) per adapter")
        #expect(Self.stated["trigger"]?["scan-timeout"] == upload["scan-timeout"])
        #expect(Self.stated["scan"]?["scan-timeout"] == String(ScanCommand.defaultScanTimeout.components.seconds))

        let help = await RecordedRun.dfu("upload", "--help").output
        let prnLine = help.split(separator: "\n").first { $0.contains("--prn N") } ?? ""
        #expect(prnLine.hasSuffix("(default \(defaults.packetReceiptNotifications))"), "\(prnLine)")
    }

    @Test func retriesMeansNPlusOneConnectCallsForTheDefaultToo() {
        // `--retries N`: N + 1 Connect calls per connection and N reconnections; the default is N = 3.
        let defaults = DFUOptions()
        #expect(defaults.connectionAttempts == defaults.reconnectAttempts + 1)
    }

    @Test func theCommandReferenceStatesTheDefaultsTheCodeUses() throws {
        let page = try Self.document("docs/cli.md")
        let found = try Self.checkMarkdown(page, name: "docs/cli.md")
        // Every upload option with a default is in the table's default column.
        for option in (Self.stated["upload"] ?? [:]).keys {
            #expect(found.contains("upload --\(option)"), "docs/cli.md does not state the default of upload --\(option)")
        }
        #expect(found.contains("scan --scan-timeout"))
        #expect(found.contains("pkg generate --app-boot-validation"))
    }

    @Test func theReadmeAndTheOtherDocumentsStateTheSameDefaults() throws {
        let readme = try Self.checkMarkdown(Self.document("README.md"), name: "README.md", outside: "upload")
        #expect(readme.contains("upload --parallel"))
        let docs = try FileManager.default.contentsOfDirectory(
            at: TestData.root.appendingPathComponent("docs"), includingPropertiesForKeys: nil)
        for file in docs where file.pathExtension == "md" && file.lastPathComponent != "cli.md" {
            _ = try Self.checkMarkdown(String(contentsOf: file, encoding: .utf8), name: "docs/" + file.lastPathComponent)
        }
    }

    @Test func theManPageStatesTheSameDefaults() throws {
        let page = try Self.document("docs/dfu.1")
        var found: Set<String> = []
        var command = ""
        for entry in Self.plainMan(page).components(separatedBy: "\n.TP\n") {
            let lines = entry.split(separator: "\n", omittingEmptySubsequences: false)
            // In COMMANDS a command's own paragraph (`.B scan`); in UPLOAD OPTIONS an option's entry,
            // named by its tag line.
            let context = command.isEmpty ? (lines.first.map { $0.replacingOccurrences(of: ".B ", with: "") } ?? "") : command
            for (option, value) in Self.stated[context] ?? [:] {
                let named = command.isEmpty ? Self.mentions(entry, option) : Self.mentions(String(lines.first ?? ""), option)
                guard named else { continue }
                let text = command.isEmpty ? Self.clause(after: "--" + option, in: entry) : entry
                guard let stated = Self.firstMatch(#"\bdefault:? ([^;,)]+)"#, in: text) else { continue }
                #expect(stated == value, "docs/dfu.1, \(context) --\(option): says default \(stated), the code \(value)")
                found.insert("\(context) --\(option)")
            }
            if let section = lines.last(where: { $0.hasPrefix(".SH ") }) {
                command = section == ".SH UPLOAD OPTIONS" ? "upload" : ""
            }
        }
        for option in (Self.stated["upload"] ?? [:]).keys {
            #expect(found.contains("upload --\(option)"), "docs/dfu.1 does not state the default of upload --\(option)")
        }
        #expect(found.contains("scan --scan-timeout"))
        let prn = Self.firstMatch(#"default PRN (\d+)|PRN\.?\*?\*? (\d+) by default"#, in: page)
        #expect(prn == nil || prn == String(DFUOptions().packetReceiptNotifications))
    }

    @Test func theManPageAndTheReferenceNameEveryOptionOfEveryCommand() throws {
        let man = Self.plainMan(try Self.document("docs/dfu.1"))
        let reference = try Self.document("docs/cli.md")
        for command in DFUCommand.subcommands {
            for option in command.options {
                #expect(Self.mentions(man, option.name), "docs/dfu.1 does not name dfu \(command.name) --\(option.name)")
                #expect(Self.mentions(reference, option.name), "docs/cli.md does not name dfu \(command.name) --\(option.name)")
            }
        }
    }

    @Test func theReferenceAndTheManPageListTheExitCodesTheCodeDefines() throws {
        let codes = Help.exitCodes.map { String($0.0.rawValue) }
        let page = try Self.document("docs/cli.md")
        let section = page.components(separatedBy: "## Exit codes").dropFirst().first?.components(separatedBy: "\n## ").first ?? ""
        let listed = section.split(separator: "\n").filter { $0.hasPrefix("| ") }.map { Self.splitRow(String($0))[0] }
            .filter { Int($0) != nil }
        #expect(listed == codes, "docs/cli.md's exit codes")
        let man = try Self.document("docs/dfu.1")
        let status = man.components(separatedBy: ".SH EXIT STATUS").dropFirst().first?.components(separatedBy: "\n.SH ").first ?? ""
        let described = Self.allMatches(#"\.TP\n\.B (\d+)\n"#, in: status)
        #expect(described == codes, "docs/dfu.1's EXIT STATUS")
    }

    // MARK: Reading the documents

    static func document(_ path: String) throws -> String {
        try String(contentsOf: TestData.root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Checks every default a Markdown document states against the code, section by section (a
    /// `### \`dfu COMMAND …\`` heading starts a command's section; text before the first one counts
    /// for `outside`), and returns `"command --option"` for each one it found.
    static func checkMarkdown(_ text: String, name: String, outside: String? = nil) throws -> Set<String> {
        var found: Set<String> = []
        var command = outside
        var tableHasDefaults = false
        let prnDefault = String(DFUOptions().packetReceiptNotifications)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("#") {
                command = line.hasPrefix("### `dfu ") ? commandName(line) : (line.hasPrefix("## ") ? outside : command)
                tableHasDefaults = false
                continue
            }
            for prn in allMatches(#"default PRN (\d+)|\*\*PRN\.\*\* (\d+) by default"#, in: line) {
                #expect(prn == prnDefault, "\(name): says default PRN \(prn), the code \(prnDefault)")
                found.insert("upload --prn")
            }
            guard let command, let options = stated[command] else { continue }
            let cells = line.hasPrefix("|") ? splitRow(line) : []
            if cells.count > 1 && cells[1] == "default" { tableHasDefaults = true }
            for (option, value) in options {
                if tableHasDefaults, cells.count > 2, mentions(cells[0], option) {
                    #expect(cells[1] == value, "\(name), \(command) --\(option): says default \(cells[1]), the code \(value)")
                    found.insert("\(command) --\(option)")
                } else if mentions(line, option) {
                    let clause = clause(after: "--" + option, in: line)
                    if let stated = firstMatch(#"\bdefault:? ([^;,)|]+)"#, in: clause)
                        ?? firstMatch(#"`([^`]+)` \(default\)"#, in: line) {
                        #expect(stated == value, "\(name), \(command) --\(option): says default \(stated), the code \(value)")
                        found.insert("\(command) --\(option)")
                    }
                }
            }
        }
        return found
    }

    /// `upload` from "### `dfu upload PACKAGE …`", `pkg generate` from "### `dfu pkg generate OUT.zip …`".
    static func commandName(_ heading: String) -> String {
        let words = heading.dropFirst("### `dfu ".count).split(separator: " ")
        return words.prefix { word in word.first.map { $0.isLowercase } ?? false }.joined(separator: " ")
            .trimmingCharacters(in: CharacterSet(charactersIn: "`"))
    }

    /// The cells of a Markdown table row, trimmed.
    static func splitRow(_ line: String) -> [String] {
        line.replacingOccurrences(of: "\\|", with: "¦").split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Whether `text` names `--option` (not a longer option that starts with its name).
    static func mentions(_ text: String, _ option: String) -> Bool {
        firstMatch("(--\(NSRegularExpression.escapedPattern(for: option)))(?![a-z-])", in: text) != nil
    }

    /// The text from the option's name to the end of its clause (the next full stop or table cell).
    static func clause(after option: String, in text: String) -> String {
        guard let range = text.range(of: option) else { return "" }
        let rest = text[range.upperBound...]
        let end = rest.firstIndex { $0 == "|" || $0 == "." } ?? rest.endIndex
        return String(rest[..<end].prefix(60))
    }

    /// The man page's source with its font escapes removed and `\-` as `-`.
    static func plainMan(_ text: String) -> String {
        var plain = text
        for escape in [#"\fB"#, #"\fR"#, #"\fI"#] { plain = plain.replacingOccurrences(of: escape, with: "") }
        return plain.replacingOccurrences(of: #"\-"#, with: "-").replacingOccurrences(of: #"\(en"#, with: "–")
    }

    static func firstMatch(_ pattern: String, in text: String) -> String? {
        allMatches(pattern, in: text).first
    }

    /// The first non-empty capture group of every match.
    static func allMatches(_ pattern: String, in text: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).compactMap { match in
            (1..<match.numberOfRanges).lazy.compactMap { Range(match.range(at: $0), in: text) }.first
                .map { String(text[$0]).trimmingCharacters(in: .whitespaces) }
        }
    }
}
