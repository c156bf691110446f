internal import CCrypto

/// libcrypto's set-up, done once before the first call into it.
enum LibCrypto {
    /// Initialises libcrypto without its exit handler (`OPENSSL_INIT_NO_ATEXIT`) and without the system's
    /// configuration file (`OPENSSL_INIT_NO_LOAD_CONFIG`).
    ///
    /// By default OpenSSL frees every table it built when the process exits (`OPENSSL_cleanup`, 0.7 M instructions
    /// at the end of each upload), memory the kernel takes back anyway. And by default the first call reads and
    /// applies `openssl.cnf` (1.7 M instructions, measured with callgrind on Debian 12's OpenSSL 3.0 for a first
    /// SHA-256): what it sets there is for TLS (cipher strings, security levels) and for which providers to load,
    /// and this module asks for fixed algorithms (SHA-2 digests, ECDSA P-256 over SHA-256) that the default
    /// provider, loaded without a configuration, always has. A configuration could only take them away (one naming
    /// a provider that is not installed makes every fetch fail), never change a digest or a signature check.
    private static let initialised: Bool =
        OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT) | UInt64(OPENSSL_INIT_NO_LOAD_CONFIG), nil) == 1

    /// Runs the set-up once; every entry point of this module that reaches libcrypto first calls it.
    static func prepare() {
        _ = initialised
    }

    /// The `size`-byte digest of `bytes` through one of libcrypto's low-level hash families (`SHA256_Init`,
    /// `SHA256_Update`, `SHA256_Final` and the like, ``SHA256`` says why not EVP), or an empty array if one of them
    /// fails: they allocate nothing and fail only on bad arguments, and a digest of zeros would be wrong, so the
    /// sentinel is one callers compare against and never match.
    static func digest<Context>(
        _ bytes: ArraySlice<UInt8>, size: Int, context: Context,
        start: (UnsafeMutablePointer<Context>) -> Int32,
        update: (UnsafeMutablePointer<Context>, UnsafeRawPointer?, Int) -> Int32,
        finish: (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Context>) -> Int32
    ) -> [UInt8] {
        prepare()
        var context = context
        var out = [UInt8](repeating: 0, count: size)
        let ok = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                start(&context) == 1 && update(&context, input.baseAddress, input.count) == 1
                    && finish(output.baseAddress, &context) == 1
            }
        }
        return ok ? out : []
    }
}
