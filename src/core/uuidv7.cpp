/*
 * uuidv7.cpp - RFC 9562 version 7 uuids (see uuidv7.h).
 */
#include "core/uuidv7.h"

#include <cstring>

namespace kid {

static void put_unix_ms(int64_t unix_ms, unsigned char *out)
{
    for (int i = 5; i >= 0; i--) {
        out[i] = static_cast<unsigned char>(unix_ms & 0xff);
        unix_ms >>= 8;
    }
}

void uuidv7_bound(int64_t unix_ms, unsigned char *out)
{
    memset(out, 0, UUID_LEN);
    put_unix_ms(unix_ms, out);
    out[6] = 0x70;
    out[8] = 0x80;
}

} // namespace kid
