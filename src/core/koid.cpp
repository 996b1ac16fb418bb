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
    radix_encode_u64(hex_alphabet, Pad::leading, koid, out, KOID_TEXT_LEN);
}

bool koid_decode(const char *text, size_t len, uint64_t *out) noexcept
{
    return radix_decode_u64(hex_alphabet, Pad::leading, text, len, out, KOID_TEXT_LEN);
}

} // namespace kid
