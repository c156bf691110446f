import Foundation
import TestSupport
import Testing
import ZipArchive

/// Inputs that once made the fuzz targets crash, hang or leak (Tests/Fixtures/fuzz-regressions/).
///
/// Each file is fed to the reader the way its fuzz target does; the reader must return a value
/// or throw a ``ZipError``, never trap. (Leaks are caught by `make fuzz`, which replays these
/// files as seeds under AddressSanitizer.)
@Suite struct FuzzRegressionTests {
    static func inputs(_ target: String) -> [String] { FuzzRegressions.inputs(target) }

    static func bytes(_ target: String, _ name: String) throws -> [UInt8] { try FuzzRegressions.bytes(target, name) }

    @Test func theZipArchiveRegressionFolderIsNotEmpty() {
        #expect(!Self.inputs("zip-archive").isEmpty)
    }

    @Test(arguments: inputs("zip-archive"))
    func everyZipArchiveRegressionReadsOrThrows(name: String) throws {
        let bytes = try Self.bytes("zip-archive", name)
        do {
            _ = try ZipArchive.readAll(bytes: bytes)
        } catch {
            #expect(!error.message.isEmpty)
        }
    }

    /// A deflated entry that libzip cannot inflate: the error text comes from the file's own
    /// libzip error (once copied, which leaked the string libzip made for it).
    @Test func anEntryThatFailsToInflateNamesTheEntryAndLibzipsReason() throws {
        let bytes = try Self.bytes("zip-archive", "leak-zip-fread-error-text")
        #expect {
            try ZipArchive.readAll(bytes: bytes)
        } throws: { error in
            guard let zipError = error as? ZipError, case .unreadableEntry(let name) = zipError.kind else { return false }
            return name == "app.bin" && zipError.message.hasPrefix("app.bin: cannot read the entry (")
                && zipError.message.count > "app.bin: cannot read the entry ()".count
        }
    }
}
