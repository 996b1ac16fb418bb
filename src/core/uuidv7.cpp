/*
 * uuidv7.cpp - RFC 9562 version 7 uuids (see uuidv7.h).
 */
#include "core/uuidv7.h"

#include <cstring>

#include "core/no_postgres.h"

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

namespace kid {

void uuidv7_pack(int64_t unix_ms, uint32_t counter, uint32_t node, uint32_t partition,
                 uint64_t random, unsigned char *out)
{
    put_unix_ms(unix_ms, out);
    uint64_t low = (UINT64_C(2) << 62) |
                   (static_cast<uint64_t>(node & ((1u << UUIDV7_NODE_BITS) - 1)) << 52) |
                   (static_cast<uint64_t>(partition & ((1u << UUIDV7_PARTITION_BITS) - 1)) << 44) |
                   (random & ((UINT64_C(1) << UUIDV7_RANDOM_BITS) - 1));
    out[6] = static_cast<unsigned char>(0x70 | ((counter >> 8) & 0x0f));
    out[7] = static_cast<unsigned char>(counter & 0xff);
    for (int i = 15; i >= 8; i--) {
        out[i] = static_cast<unsigned char>(low & 0xff);
        low >>= 8;
    }
}

static inline uint64_t rotl(uint64_t x, int b)
{
    return (x << b) | (x >> (64 - b));
}

#define SIPROUND                                                                                   \
    do {                                                                                           \
        v0 += v1;                                                                                  \
        v1 = rotl(v1, 13);                                                                         \
        v1 ^= v0;                                                                                  \
        v0 = rotl(v0, 32);                                                                         \
        v2 += v3;                                                                                  \
        v3 = rotl(v3, 16);                                                                         \
        v3 ^= v2;                                                                                  \
        v0 += v3;                                                                                  \
        v3 = rotl(v3, 21);                                                                         \
        v3 ^= v0;                                                                                  \
        v2 += v1;                                                                                  \
        v1 = rotl(v1, 17);                                                                         \
        v1 ^= v2;                                                                                  \
        v2 = rotl(v2, 32);                                                                         \
    } while (0)

uint64_t siphash24(uint64_t k0, uint64_t k1, const unsigned char *m, size_t len)
{
    uint64_t v0 = k0 ^ UINT64_C(0x736f6d6570736575);
    uint64_t v1 = k1 ^ UINT64_C(0x646f72616e646f6d);
    uint64_t v2 = k0 ^ UINT64_C(0x6c7967656e657261);
    uint64_t v3 = k1 ^ UINT64_C(0x7465646279746573);
    size_t whole = len - len % 8;
    for (size_t i = 0; i < whole; i += 8) {
        uint64_t w = 0;
        for (int j = 7; j >= 0; j--)
            w = (w << 8) | m[i + j];
        v3 ^= w;
        SIPROUND;
        SIPROUND;
        v0 ^= w;
    }
    uint64_t last = static_cast<uint64_t>(len & 0xff) << 56;
    for (size_t j = len % 8; j > 0; j--)
        last |= static_cast<uint64_t>(m[whole + j - 1]) << (8 * (j - 1));
    v3 ^= last;
    SIPROUND;
    SIPROUND;
    v0 ^= last;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

#undef SIPROUND

Uuidv7Step uuidv7_step(Uuidv7Generator *g, int64_t now_ms, int64_t limit_ms, int64_t *unix_ms,
                       uint32_t *counter)
{
    int64_t ms;
    uint32_t c;
    Uuidv7Step step;
    if (now_ms > g->last_ms) {
        ms = now_ms;
        c = 0;
        step = Uuidv7Step::ok;
    } else if (g->counter < UUIDV7_COUNTER_MAX) {
        ms = g->last_ms;
        c = g->counter + 1;
        step = Uuidv7Step::same;
    } else {
        ms = g->last_ms + 1;
        c = 0;
        if (ms > now_ms && ms > limit_ms)
            return Uuidv7Step::wait;
        step = Uuidv7Step::ahead;
    }
    if (ms > UUIDV7_MAX_UNIX_MS)
        return Uuidv7Step::too_late;
    g->last_ms = ms;
    g->counter = c;
    *unix_ms = ms;
    *counter = c;
    return step;
}

uint64_t uuidv7_random(Uuidv7Generator *g)
{
    unsigned char m[8];
    uint64_t n = g->calls++;
    for (int i = 0; i < 8; i++)
        m[i] = static_cast<unsigned char>(n >> (8 * i));
    return siphash24(g->k0, g->k1, m, sizeof(m)) & ((UINT64_C(1) << UUIDV7_RANDOM_BITS) - 1);
}

} // namespace kid
