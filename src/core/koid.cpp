/*
 * koid.cpp - koid hex codec (the radix codec with 4-bit digits).
 */
#include "core/koid.h"

#include "core/radix.h"
#include "core/no_postgres.h"

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

bool koid_with_time(int64_t unix_us, int64_t epoch_ms, unsigned generator_id,
                    uint64_t backfill_sequence, uint64_t *out) noexcept
{
    int64_t start_us = koid_ms_start_unix_us(0, epoch_ms);
    if (unix_us < start_us || (unix_us - start_us) / 1000 > KOID_MAX_MS)
        return false;
    *out = koid_pack((unix_us - start_us) / 1000, generator_id,
                     backfill_sequence & KOID_COUNTER_MAX);
    return true;
}

} // namespace kid
