/*
 * ulid.cpp - ULID text (see ulid.h), on the radix codec every kid id's
 * text uses: 26 digits of 5 bits for 16 bytes, the two spare bits in front.
 */
#include "core/ulid.h"

#include "core/radix.h"

#include "core/no_postgres.h"

namespace kid {

/* Crockford's base32 as ULIDs write it: capitals, without I, L, O and U. */
static constexpr Alphabet ulid_alphabet("0123456789ABCDEFGHJKMNPQRSTVWXYZ", 5);

void ulid_encode(const uint8_t *in, char *out) noexcept
{
    radix_encode(ulid_alphabet, Pad::leading, in, ULID_BYTES, out, ULID_TEXT_LEN);
}

bool ulid_decode(const char *in, size_t len, uint8_t *out) noexcept
{
    if (len != ULID_TEXT_LEN)
        return false;
    /* Either case: the small letters are read as their capitals. */
    char upper[ULID_TEXT_LEN];
    for (size_t i = 0; i < ULID_TEXT_LEN; i++)
        upper[i] = (in[i] >= 'a' && in[i] <= 'z') ? static_cast<char>(in[i] - 'a' + 'A') : in[i];
    return radix_decode(ulid_alphabet, Pad::leading, upper, ULID_TEXT_LEN, out, ULID_BYTES,
                        ULID_TEXT_LEN);
}

} // namespace kid
