/* SHA-2 digests go through libcrypto's low-level functions (SHA256_Init, ...), which OpenSSL 3.0 deprecated in
 * favour of EVP but still ships (OpenSSL 4.0 removed other deprecated API, not these: doc/man7/ossl-removed-api.pod).
 * EVP's first digest costs 3.6 M instructions and 1.1 MB of resident memory in OpenSSL 3.0 (the name map is filled
 * from every legacy algorithm name, ossl_namemap_stored), which every dfu run paid for one hash; the low-level
 * functions run the same assembly (SHA extensions where the CPU has them). Sources/DFUCrypto/SHA256.swift says more.
 * This macro (openssl_user_macros(7)) drops the deprecation attributes, which Swift would report as warnings. */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/pem.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/bio.h>
#include <openssl/rsa.h>
