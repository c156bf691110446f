#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The process's environment variables as a dictionary.
public enum ProcessEnvironment {
    /// Reads `environ`.
    public static func current() -> [String: String] {
        var result: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            cursor += 1
        }
        return result
    }
}
