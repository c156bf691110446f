/// Why text is not one JSON value, or a value could not be written.
public enum JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text breaks JSON's rules where json-c found it (or ends inside a value); `offset` in bytes.
    case invalid(offset: Int)
    /// Arrays and objects nested deeper than ``JSONValue/maxDepth``.
    case tooDeep(limit: Int)
    /// A string that is not valid UTF-8.
    case invalidUTF8(offset: Int)
    /// More bytes than json-c takes in one call (2^31 − 1).
    case tooLarge(bytes: Int)
    /// A number JSON cannot write (infinite or not a number).
    case unwritableNumber(Double)
    /// json-c could not allocate memory.
    case outOfMemory

    /// One line.
    public var description: String {
        switch self {
        case .invalid(let offset): "not valid JSON (at byte \(offset))"
        case .tooDeep(let limit): "nested deeper than \(limit) levels"
        case .invalidUTF8(let offset): "a string is not valid UTF-8 (at byte \(offset))"
        case .tooLarge(let bytes): "\(bytes) bytes is too large to read as JSON"
        case .unwritableNumber(let value): "the number \(value) cannot be written as JSON"
        case .outOfMemory: "out of memory"
        }
    }
}
