/*
 * radix.cpp - the one bit-string <-> digit-string codec of kid.
 */
#include "core/radix.h"
#include "core/no_postgres.h"

namespace kid {

/* Bit `i` (0 = most significant) of the nbytes-byte string. */
static inline unsigned bit_at(const uint8_t *bytes, size_t i) noexcept
{
    return (bytes[i >> 3] >> (7 - (i & 7))) & 1u;
}

void radix_encode(const Alphabet &alphabet, Pad pad, const uint8_t *in, size_t nbytes, char *out,
                  size_t ndigits) noexcept
{
    const size_t nbits = nbytes * 8;
    const size_t spare = ndigits * alphabet.bits - nbits;
    /* Position of digit bit 0 within the id's bits; negative bits are leading spares. */
    const ptrdiff_t first = pad == Pad::leading ? -static_cast<ptrdiff_t>(spare) : 0;

    for (size_t d = 0; d < ndigits; d++) {
        unsigned v = 0;
        for (int b = 0; b < alphabet.bits; b++) {
            ptrdiff_t pos = first + static_cast<ptrdiff_t>(d * alphabet.bits + b);
            unsigned bit = (pos >= 0 && static_cast<size_t>(pos) < nbits) ? bit_at(in, pos) : 0;
            v = (v << 1) | bit;
        }
        out[d] = alphabet.digit[v];
    }
}

bool radix_decode(const Alphabet &alphabet, Pad pad, const char *in, size_t len, uint8_t *out,
                  size_t nbytes, size_t ndigits) noexcept
{
    if (len != ndigits)
        return false;
    const size_t nbits = nbytes * 8;
    const size_t spare = ndigits * alphabet.bits - nbits;
    const ptrdiff_t first = pad == Pad::leading ? -static_cast<ptrdiff_t>(spare) : 0;

    for (size_t i = 0; i < nbytes; i++)
        out[i] = 0;
    for (size_t d = 0; d < ndigits; d++) {
        int v = alphabet.value[static_cast<unsigned char>(in[d])];
        if (v < 0)
            return false;
        for (int b = 0; b < alphabet.bits; b++) {
            unsigned bit = (static_cast<unsigned>(v) >> (alphabet.bits - 1 - b)) & 1u;
            ptrdiff_t pos = first + static_cast<ptrdiff_t>(d * alphabet.bits + b);
            if (pos < 0 || static_cast<size_t>(pos) >= nbits) {
                if (bit)
                    return false; /* a spare bit must be zero */
                continue;
            }
            out[pos >> 3] |= static_cast<uint8_t>(bit << (7 - (pos & 7)));
        }
    }
    return true;
}

} // namespace kid
