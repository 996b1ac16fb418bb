/*
 * ulid.h - ULIDs (github.com/ulid/spec) kept in PostgreSQL's uuid type:
 * their text form and their time.  Pure C++, no PostgreSQL header.
 *
 * A ULID is 128 bits: a 48-bit Unix time in milliseconds, then 80 random
 * bits, big endian, so that its 16 bytes are a uuid's and sort as the
 * uuid type sorts them (bytes, memcmp).  Its text is 26 digits of
 * Crockford's base32 (0-9 and the capitals but I, L, O, U), most
 * significant first: 130 bits, of which the first two are zero, so the
 * first digit is 0 to 7.  Text is read in either case and written in
 * capitals, as the spec asks; anything else (a length other than 26, a
 * character outside the alphabet, I, L, O or U included, a first digit
 * above 7) is refused, not guessed at.
 */
#ifndef KID_CORE_ULID_H
#define KID_CORE_ULID_H

#include <cstddef>
#include <cstdint>

#include "core/uuidv7.h"

namespace kid {

constexpr size_t ULID_TEXT_LEN = 26;
constexpr size_t ULID_BYTES = 16;

/* The 26 capital digits of the 16 bytes `in` (not NUL-terminated). */
void ulid_encode(const uint8_t *in, char *out) noexcept;

/* The 16 bytes of a ULID's text of `len` characters; false if it is not one. */
bool ulid_decode(const char *in, size_t len, uint8_t *out) noexcept;

/*
 * A ULID's time: its first 48 bits, Unix milliseconds (0 .. 2^48 - 1),
 * where a version 7 uuid keeps its own (uuid_top48()).
 */
inline int64_t ulid_unix_ms(const uint8_t *u) noexcept
{
    return uuid_top48(u);
}

} // namespace kid

#endif
