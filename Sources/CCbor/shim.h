#include <cbor.h>
#include <stdlib.h>
