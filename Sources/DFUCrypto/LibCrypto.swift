internal import CCrypto

/// libcrypto's set-up, done once before the first call into it.
enum LibCrypto {
    /// Initialises libcrypto without its exit handler (`OPENSSL_INIT_NO_ATEXIT`): by default OpenSSL frees every
    /// table it built when the process exits (`OPENSSL_cleanup`, 0.7 M instructions at the end of each upload),
    /// memory the kernel takes back anyway. Everything else is as libcrypto's implicit initialisation does it,
    /// the system's `openssl.cnf` included.
    private static let initialised: Bool = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1

    /// Runs the set-up once; every entry point of this module that reaches libcrypto first calls it.
    static func prepare() {
        _ = initialised
    }
}
