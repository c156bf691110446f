#include <cbor.h>
#include <stdlib.h>

/// Frees a buffer libcbor allocated for the caller (cbor_serialize_alloc's output), with the C
/// library's free, as libcbor's documentation asks; so that Swift code calls no C library function itself.
static inline void ccbor_free_buffer(void *buffer) {
    free(buffer);
}
