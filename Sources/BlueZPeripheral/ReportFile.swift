import Foundation

/// Writes a ``PeripheralReport`` as pretty JSON, atomically (a reader never sees half a file).
enum ReportFile {
    static func write(_ report: PeripheralReport, to path: String) throws(PeripheralError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            let data = try encoder.encode(report)
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .report(path: path, reason: String(describing: error))
        }
    }
}
