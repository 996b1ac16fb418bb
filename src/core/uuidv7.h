/*
 * uuidv7.h - RFC 9562 version 7 uuids: the time in their first 48 bits,
 * the range-scan bound of a millisecond.  Pure C++, no PostgreSQL header.
 *
 * A uuid is 16 bytes, compared as bytes (PostgreSQL's uuid order is
 * memcmp).  Version 7: bytes 0-5 are the Unix time in milliseconds (big
 * endian), the high nibble of byte 6 is the version (7), the two high bits
 * of byte 8 are the variant (10).
 */
#ifndef KID_CORE_UUIDV7_H
#define KID_CORE_UUIDV7_H

#include "core/no_postgres.h"

#include <cstdint>

namespace kid {

constexpr int UUID_LEN = 16;
/* The last millisecond 48 bits hold: 10889-08-02 05:31:50.655 UTC. */
constexpr int64_t UUIDV7_MAX_UNIX_MS = (INT64_C(1) << 48) - 1;
constexpr int64_t UUIDV7_MAX_UNIX_US = UUIDV7_MAX_UNIX_MS * 1000 + 999;

/* The first 48 bits of any uuid, as a number: a version 7 uuid's Unix milliseconds. */
inline int64_t uuid_top48(const unsigned char *u)
{
    int64_t v = 0;
    for (int i = 0; i < 6; i++)
        v = (v << 8) | u[i];
    return v;
}

/* Version 7 of the RFC 9562 variant (10xx in byte 8). */
inline bool uuid_is_v7(const unsigned char *u)
{
    return (u[6] >> 4) == 7 && (u[8] & 0xc0) == 0x80;
}

/*
 * Where a uuid sorts against the start of millisecond `unix_ms` (0 ..
 * UUIDV7_MAX_UNIX_MS) in the family's order: -1 below, 1 at or above (a
 * time sorts just below the uuids whose first 48 bits are its millisecond).
 * Defined on the raw first 48 bits of every uuid, so that it agrees with
 * the byte order for all of them (src/sql/uuidv7.sql says why).
 */
inline int uuid_cmp_unix_ms(const unsigned char *u, int64_t unix_ms)
{
    return uuid_top48(u) >= unix_ms ? 1 : -1;
}

/* The smallest version 7 uuid of millisecond `unix_ms`: version and variant set, the rest 0. */
void uuidv7_bound(int64_t unix_ms, unsigned char *out);

} // namespace kid

#endif
