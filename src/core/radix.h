/*
 * radix.h - fixed-width power-of-two radix text codecs.
 *
 * Every kid id's text is a big-endian bit string written as a fixed number
 * of digits of 4, 5 or 6 bits each (koid's hex; sno's and tid's base32;
 * uid's d64 and base64url), most significant first.  When the digits hold
 * more bits than the id (tid: 13 x 5 = 65 for 64 bits; uid: 11 x 6 = 66 for
 * 64 bits) the spare bits are zero, either in front (tid) or at the tail
 * (uid).  (codokey is not written with this codec.)  Decoding is strict: a character outside the alphabet or a spare
 * bit that is not zero makes the whole string invalid.
 *
 * One codec serves every scheme; only the alphabet and the padding side
 * differ.  Nothing here allocates.
 */
#ifndef KID_CORE_RADIX_H
#define KID_CORE_RADIX_H

#include <cstddef>
#include <cstdint>

namespace kid {

/* An alphabet of 2^bits digits and its reverse lookup table. */
struct Alphabet {
    int bits;          /* 4, 5 or 6 */
    char digit[64];    /* value -> character */
    int8_t value[256]; /* character -> value, -1 if not a digit */

    constexpr Alphabet(const char *digits, int nbits) : bits(nbits), digit(), value()
    {
        for (int c = 0; c < 256; c++)
            value[c] = -1;
        for (int v = 0; v < (1 << nbits); v++) {
            digit[v] = digits[v];
            value[static_cast<unsigned char>(digits[v])] = static_cast<int8_t>(v);
        }
    }
};

/* Where the digits' spare bits sit when they hold more bits than the id. */
enum class Pad { leading, trailing };

/* sno: 32 digits, sorted in ASCII order, no 0/1 to avoid look-alikes. */
inline constexpr Alphabet sno_alphabet("23456789abcdefghijklmnopqrstuvwx", 5);
/* AT Protocol "base32-sortable". */
inline constexpr Alphabet tid_alphabet("234567abcdefghijklmnopqrstuvwxyz", 5);
/* uid's "d64": base64 digits reordered into ASCII order, so text sorts like the bits. */
inline constexpr Alphabet
    d64_alphabet(".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz", 6);

/*
 * Write the nbytes-byte big-endian bit string `in` as exactly `ndigits`
 * digits into `out` (not NUL-terminated).  ndigits * bits must be at least
 * nbytes * 8 and exceed it by less than one digit.
 */
void radix_encode(const Alphabet &alphabet, Pad pad, const uint8_t *in, size_t nbytes, char *out,
                  size_t ndigits) noexcept;

/*
 * Parse exactly `len` characters; true and `out` filled only when len is
 * the expected digit count, every character is in the alphabet and the
 * spare bits are zero.  On false `out` is unspecified.
 */
bool radix_decode(const Alphabet &alphabet, Pad pad, const char *in, size_t len, uint8_t *out,
                  size_t nbytes, size_t ndigits) noexcept;

/* Big-endian helpers shared by every layout. */
inline uint64_t load_be(const uint8_t *p, size_t n) noexcept
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = (v << 8) | p[i];
    return v;
}

inline void store_be(uint8_t *p, size_t n, uint64_t v) noexcept
{
    for (size_t i = n; i-- > 0;) {
        p[i] = static_cast<uint8_t>(v);
        v >>= 8;
    }
}

/* radix_encode and radix_decode of a 64-bit value, as its 8 big-endian bytes. */
inline void radix_encode_u64(const Alphabet &alphabet, Pad pad, uint64_t v, char *out,
                             size_t ndigits) noexcept
{
    uint8_t bytes[8];
    store_be(bytes, 8, v);
    radix_encode(alphabet, pad, bytes, 8, out, ndigits);
}

inline bool radix_decode_u64(const Alphabet &alphabet, Pad pad, const char *in, size_t len,
                             uint64_t *out, size_t ndigits) noexcept
{
    uint8_t bytes[8];
    if (!radix_decode(alphabet, pad, in, len, bytes, 8, ndigits))
        return false;
    *out = load_be(bytes, 8);
    return true;
}

} // namespace kid

#endif
