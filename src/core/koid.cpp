/*
 * koid.cpp - koid hex codec (the radix codec with 4-bit digits).
 */
#include "koid.h"

#include "radix.h"
#include "no_postgres.h"

namespace kid {

static constexpr Alphabet hex_alphabet("0123456789abcdef", 4);

void koid_encode(uint64_t koid, char *out) noexcept
{
    uint8_t bytes[8];
    store_be(bytes, 8, koid);
    radix_encode(hex_alphabet, Pad::leading, bytes, 8, out, KOID_TEXT_LEN);
}

bool koid_decode(const char *text, size_t len, uint64_t *out) noexcept
{
    uint8_t bytes[8];
    if (!radix_decode(hex_alphabet, Pad::leading, text, len, bytes, 8, KOID_TEXT_LEN))
        return false;
    *out = load_be(bytes, 8);
    return true;
}

} // namespace kid
