/// Why a package cannot be made: the options do not go together (a usage error), or an input
/// file or key cannot be used (a data error). One sentence naming the option or file and the cause.
public struct PackageGenerationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Whether the command line itself is wrong (else an input's contents are).
    public let isUsage: Bool
    /// The sentence shown to the user.
    public let description: String

    /// An option, or a combination of options, that nrfutil refuses too.
    public static func usage(_ text: String) -> PackageGenerationError {
        PackageGenerationError(isUsage: true, description: text)
    }

    /// An input whose contents cannot be used; `name` is the file as the user named it.
    public static func data(name: String, _ cause: String) -> PackageGenerationError {
        PackageGenerationError(isUsage: false, description: "\(name): \(cause)")
    }

    /// A package error of the input (bad HEX record, too large).
    public static func data(_ error: PackageError) -> PackageGenerationError {
        PackageGenerationError(isUsage: false, description: error.description)
    }
}
