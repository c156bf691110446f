#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SystemSupport

/// Writes a ``PeripheralReport`` as pretty JSON through ``FileWriter`` (a temporary file renamed:
/// a reader never sees half a file, and a planted link or FIFO at the path is replaced, not followed).
enum ReportFile {
    static func write(_ report: PeripheralReport, to path: String) throws(PeripheralError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            let data = try encoder.encode(report)
            try FileWriter.writeAtomically([UInt8](data), to: path)
        } catch let error as FileWriteError {
            throw .report(path: path, reason: error.reason)
        } catch {
            throw .report(path: path, reason: String(describing: error))
        }
    }
}
