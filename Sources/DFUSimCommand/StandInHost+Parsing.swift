public import DFUSimStandIn
import DFUSimulator

/// `--bluetoothd KEY=VALUE[,…]` (the keys: ``StandInHost``).
extension StandInHost {
    /// Parses a specification.
    public init(parsing text: String) throws(StandInSpecError) {
        self.init()
        var fields = try SpecFields(text)
        if let word = fields.words.first {
            throw StandInSpecError("--bluetoothd takes key=value fields, not '\(word)'")
        }
        if let text = fields.take("version") {
            guard let version = Version(rawValue: text) else {
                throw StandInSpecError(
                    "version=\(text) must be one of \(Version.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self.version = version
        }
        if let text = fields.take("cache") {
            guard let cache = Cache(rawValue: text) else { throw StandInSpecError("cache=\(text) must be always, yes or no") }
            self.cache = cache
        }
        if let seconds = try fields.takeInteger("temporary_timeout_s") {
            guard (0...86_400).contains(seconds) else {
                throw StandInSpecError("temporary_timeout_s=\(seconds) must be 0 to 86400")
            }
            temporaryTimeout = .seconds(seconds)
        }
        try fields.checkAllTaken(in: "--bluetoothd \(text)")
    }
}
