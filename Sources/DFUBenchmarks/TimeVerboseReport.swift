/// The figures `/usr/bin/time -v` prints for a finished process.
public struct TimeVerboseReport: Sendable, Hashable, Codable {
    /// User CPU seconds.
    public var userSeconds: Double
    /// System CPU seconds.
    public var systemSeconds: Double
    /// Peak resident set size, KB.
    public var peakRSSKilobytes: Int
    /// Wall clock seconds.
    public var wallSeconds: Double

    /// Reads the report out of `text` (other lines are ignored); nil when a figure is missing.
    public init?(parsing text: String) {
        var user: Double?
        var system: Double?
        var rss: Int?
        var wall: Double?
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingPrefix(while: { $0 == " " || $0 == "\t" })
            guard let colon = line.lastIndex(of: ":"), line.hasPrefix("User time") || line.hasPrefix("System time")
                || line.hasPrefix("Maximum resident") || line.hasPrefix("Elapsed (wall clock)")
            else { continue }
            if line.hasPrefix("Elapsed (wall clock)") {
                // "Elapsed (wall clock) time (h:mm:ss or m:ss): 0:01.23": the value holds colons itself.
                guard let marker = line.firstRange(of: "): ") else { continue }
                let fields = line[marker.upperBound...].split(separator: ":").compactMap { Double($0) }
                wall = fields.reduce(0) { $0 * 60 + $1 }
                continue
            }
            let value = line[line.index(after: colon)...].trimmingPrefix(while: { $0 == " " })
            if line.hasPrefix("User time") { user = Double(value) }
            if line.hasPrefix("System time") { system = Double(value) }
            if line.hasPrefix("Maximum resident") { rss = Int(value) }
        }
        guard let user, let system, let rss, let wall else { return nil }
        userSeconds = user
        systemSeconds = system
        peakRSSKilobytes = rss
        wallSeconds = wall
    }
}
