/// The files of a generated package, in the order they go into the zip archive.
public struct GeneratedPackage: Sendable {
    /// One file of the package.
    public struct File: Sendable, Hashable {
        public let name: String
        public let bytes: [UInt8]

        public init(name: String, bytes: [UInt8]) {
            self.name = name
            self.bytes = bytes
        }
    }

    /// The files in zip order.
    public let files: [File]

    public init(files: [File]) { self.files = files }
}
