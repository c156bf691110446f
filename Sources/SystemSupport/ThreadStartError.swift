/// `pthread_create` failed with `code`.
public struct ThreadStartError: Error, Sendable, CustomStringConvertible {
    public let code: Int32

    public var description: String { "pthread_create failed: \(code)" }
}
