import ZipArchive
import Testing

@Suite struct ZipArchiveTests {
    /// A zip with a manifest and two binary entries, plus a directory entry.
    static func packageZip() -> [UInt8] {
        var writer = StoredZipWriter()
        writer.add("manifest.json", #"{"manifest":{}}"#)
        writer.add("folder/", [])
        writer.add("app.bin", [0x00, 0x01, 0x02, 0x03])
        writer.add("app.dat", [UInt8](repeating: 0xAB, count: 300), deflate: true)
        return writer.bytes()
    }

    @Test func listsFileEntriesInArchiveOrderWithoutDirectories() throws {
        let archive = try ZipArchive(bytes: Self.packageZip())
        #expect(archive.entryNames == ["manifest.json", "app.bin", "app.dat"])
        #expect(archive.declaredSize(of: "app.dat") == 300)
        #expect(archive.declaredSize(of: "folder/") == nil)
    }

    @Test func readsStoredAndDeflatedEntries() throws {
        let archive = try ZipArchive(bytes: Self.packageZip())
        #expect(try archive.read("app.bin") == [0x00, 0x01, 0x02, 0x03])
        #expect(try archive.read("app.dat") == [UInt8](repeating: 0xAB, count: 300))
    }

    @Test func readAllReturnsEveryFileEntry() throws {
        let entries = try ZipArchive.readAll(bytes: Self.packageZip())
        #expect(entries.keys.sorted() == ["app.bin", "app.dat", "manifest.json"])
        #expect(entries["manifest.json"] == Array(#"{"manifest":{}}"#.utf8))
    }

    @Test func anEmptyArchiveHasNoEntries() throws {
        let archive = try ZipArchive(bytes: StoredZipWriter().bytes())
        #expect(archive.entryNames.isEmpty)
    }

    struct BadArchive: CustomTestStringConvertible, Sendable {
        let testDescription: String
        let bytes: [UInt8]
        let expected: ZipError.Kind
    }

    static let badArchives: [BadArchive] = {
        let valid = packageZip()
        func single(_ name: String) -> [UInt8] {
            var writer = StoredZipWriter()
            writer.add(name, "x")
            return writer.bytes()
        }
        var duplicate = StoredZipWriter()
        duplicate.add("app.bin", "one")
        duplicate.add("app.bin", "two")
        return [
            BadArchive(testDescription: "empty file", bytes: [], expected: .notAZip),
            BadArchive(testDescription: "random bytes", bytes: (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 73 &+ 11) }, expected: .notAZip),
            BadArchive(testDescription: "text", bytes: Array("just some text, not a zip".utf8), expected: .notAZip),
            BadArchive(testDescription: "truncated in the data", bytes: Array(valid[0..<60]), expected: .truncated),
            BadArchive(testDescription: "truncated in the end record", bytes: Array(valid.dropLast(5)), expected: .truncated),
            BadArchive(testDescription: "parent component", bytes: single("../evil.bin"), expected: .unsafePath(name: "../evil.bin")),
            BadArchive(testDescription: "parent component inside", bytes: single("a/../../evil.bin"), expected: .unsafePath(name: "a/../../evil.bin")),
            BadArchive(testDescription: "absolute path", bytes: single("/etc/passwd"), expected: .unsafePath(name: "/etc/passwd")),
            BadArchive(testDescription: "backslash", bytes: single("..\\evil.bin"), expected: .unsafePath(name: "..\\evil.bin")),
            BadArchive(testDescription: "duplicate name", bytes: duplicate.bytes(), expected: .duplicateName(name: "app.bin")),
        ]
    }()

    @Test(arguments: badArchives)
    func refusesBadArchivesWithOneLineMessage(_ bad: BadArchive) {
        #expect {
            _ = try ZipArchive.readAll(bytes: bad.bytes)
        } throws: { error in
            guard let error = error as? ZipError else { return false }
            return error.kind == bad.expected && !error.message.isEmpty && !error.message.contains("\n")
        }
    }

    @Test func libzipMessageIsCopiedIntoTheError() {
        #expect {
            _ = try ZipArchive(bytes: Array("not a zip at all".utf8))
        } throws: { error in
            (error as? ZipError)?.message == "not a zip archive"
        }
    }

    @Test func tooManyEntriesAreRefused() {
        var writer = StoredZipWriter()
        for index in 0...ZipArchive.maximumEntryCount { writer.add("f\(index)", []) }
        #expect(throws: ZipError(.tooManyEntries(count: 1001, limit: 1000), message: "the zip archive has 1001 entries, more than the 1000 allowed")) {
            _ = try ZipArchive(bytes: writer.bytes())
        }
    }

    @Test func entryOverTheLimitIsRefusedBeforeReading() throws {
        var writer = StoredZipWriter()
        writer.add("big.bin", [UInt8](repeating: 1, count: 100))
        let archive = try ZipArchive(bytes: writer.bytes())
        #expect(throws: ZipError(.entryTooLarge(name: "big.bin", size: 100, limit: 99), message: "big.bin: the entry declares 100 bytes, more than the 99 allowed")) {
            _ = try archive.read("big.bin", limit: 99)
        }
        #expect(try archive.read("big.bin", limit: 100).count == 100)
    }

    @Test func defaultEntryCapIs16MiB() throws {
        // A declared size just over the cap; no data needs to exist since the check comes first.
        var writer = StoredZipWriter()
        writer.add("huge.bin", [], declaredSize: UInt32(16 << 20) + 1)
        let archive = try ZipArchive(bytes: writer.bytes())
        #expect { _ = try archive.read("huge.bin") } throws: { error in
            (error as? ZipError)?.kind == .entryTooLarge(name: "huge.bin", size: (16 << 20) + 1, limit: 16 << 20)
        }
    }

    @Test func totalOverTheLimitIsRefusedBeforeReading() {
        var writer = StoredZipWriter()
        writer.add("a.bin", [UInt8](repeating: 1, count: 60))
        writer.add("b.bin", [UInt8](repeating: 2, count: 60))
        #expect { _ = try ZipArchive.readAll(bytes: writer.bytes(), entryLimit: 100, totalLimit: 100) } throws: { error in
            (error as? ZipError)?.kind == .totalTooLarge(size: 120, limit: 100)
        }
    }

    struct SizeLie: CustomTestStringConvertible, Sendable {
        let testDescription: String
        let realSize: Int
        let declared: UInt32
        let deflate: Bool
        let expectedActual: UInt64
    }

    @Test(arguments: [
        // More data than declared: reading stops one byte after the declared size.
        SizeLie(testDescription: "deflate bomb", realSize: 100_000, declared: 10, deflate: true, expectedActual: 11),
        SizeLie(testDescription: "stored, more than declared", realSize: 1000, declared: 10, deflate: false, expectedActual: 11),
        // Less data than declared.
        SizeLie(testDescription: "deflate, less than declared", realSize: 10, declared: 1000, deflate: true, expectedActual: 10),
    ])
    func entryWhoseDataDoesNotMatchItsDeclaredSizeIsRefused(_ lie: SizeLie) throws {
        var writer = StoredZipWriter()
        writer.add("app.bin", [UInt8](repeating: 7, count: lie.realSize), declaredSize: lie.declared, deflate: lie.deflate)
        let archive = try ZipArchive(bytes: writer.bytes())
        #expect { _ = try archive.read("app.bin") } throws: { error in
            guard let error = error as? ZipError else { return false }
            return error.kind == .sizeMismatch(name: "app.bin", declared: UInt64(lie.declared), actual: lie.expectedActual)
                && error.message.hasPrefix("app.bin: the entry declares \(lie.declared) bytes")
        }
    }

    @Test func readingAMissingEntryNamesIt() throws {
        let archive = try ZipArchive(bytes: Self.packageZip())
        #expect(throws: ZipError(.noSuchEntry(name: "nope.bin"), message: "nope.bin: no such entry in the zip archive")) {
            _ = try archive.read("nope.bin")
        }
    }

    @Test func aNulInAStoredNameNeverReachesTheCaller() throws {
        var writer = StoredZipWriter()
        writer.add("a\u{0}b", "x")
        if let archive = try? ZipArchive(bytes: writer.bytes()) {
            #expect(archive.entryNames.allSatisfy { !$0.utf8.contains(0) })
        }
    }
}
