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

#include <cstddef>
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

/*
 * kid's version 7 layout (docs/types.md, "uuid"), after RFC 9562 section
 * 6.2 method 1 (a fixed-length counter in rand_a) and section 6.4 (node
 * bits in rand_b):
 *
 *   bits 127..80  unix_ts_ms   48  Unix milliseconds
 *   bits  79..76  ver           4  0111
 *   bits  75..64  counter      12  per backend, 0 at each new millisecond
 *   bits  63..62  var           2  10
 *   bits  61..52  node         10  kid.node_id
 *   bits  51..44  partition     8  the backend's slot (one of 256 per server)
 *   bits  43..0   random       44  SipHash-2-4 of a per-backend call number
 *                                  under a per-backend key from
 *                                  pg_strong_random
 *
 * (unix_ts_ms, counter, node, partition) is distinct for every id, so ids
 * are unique by construction; (unix_ts_ms, counter) strictly increases
 * within a backend, so its ids do.
 */
constexpr int UUIDV7_COUNTER_BITS = 12;
constexpr uint32_t UUIDV7_COUNTER_MAX = (1u << UUIDV7_COUNTER_BITS) - 1;
constexpr int UUIDV7_NODE_BITS = 10;
constexpr int UUIDV7_PARTITION_BITS = 8;
constexpr int UUIDV7_RANDOM_BITS = 44;

/* The id of the given fields; random's low UUIDV7_RANDOM_BITS bits are used. */
void uuidv7_pack(int64_t unix_ms, uint32_t counter, uint32_t node, uint32_t partition,
                 uint64_t random, unsigned char *out);

/* The fields of an id packed by uuidv7_pack. */
inline uint32_t uuidv7_counter(const unsigned char *u)
{
    return (static_cast<uint32_t>(u[6] & 0x0f) << 8) | u[7];
}
inline uint32_t uuidv7_node(const unsigned char *u)
{
    return (static_cast<uint32_t>(u[8] & 0x3f) << 4) | (u[9] >> 4);
}
inline uint32_t uuidv7_partition(const unsigned char *u)
{
    return (static_cast<uint32_t>(u[9] & 0x0f) << 4) | (u[10] >> 4);
}

/* SipHash-2-4 (Aumasson and Bernstein) of len bytes under the key (k0, k1). */
uint64_t siphash24(uint64_t k0, uint64_t k1, const unsigned char *m, size_t len);

/*
 * One backend's generator.  The caller keeps it in process memory: nothing
 * here is shared, so a call writes no cache line another core reads.
 */
struct Uuidv7Generator {
    int64_t last_ms;  /* the time of the last id (or the floor it must exceed); -1: none */
    uint32_t counter; /* the counter of the last id */
    uint64_t calls;   /* ids made so far: the input of the random bits */
    uint64_t k0, k1;  /* the SipHash key */
};

enum class Uuidv7Step {
    ok,      /* a new millisecond of the clock, counter 0 */
    same,    /* the clock has not passed the last id: its millisecond, counter + 1 */
    ahead,   /* the counter is full, or the clock is behind: the next millisecond */
    wait,    /* the next millisecond would pass limit_ms: try again later */
    too_late /* past the last millisecond 48 bits hold */
};

/*
 * The (millisecond, counter) of the next id: above the last one, at the
 * clock's millisecond now_ms when that is later.  A millisecond above both
 * now_ms and limit_ms (the backend's trusted time: the highest clock
 * reading it saw, or the floor it started from, advanced by the monotonic
 * clock) is never taken: the caller waits.  So ids are at most the size of
 * a clock step back ahead of real time, as tid's are.  On ok, same and ahead
 * the generator has advanced.
 */
Uuidv7Step uuidv7_step(Uuidv7Generator *g, int64_t now_ms, int64_t limit_ms, int64_t *unix_ms,
                       uint32_t *counter);

/* The 44 random bits of the generator's next id (advances calls). */
uint64_t uuidv7_random(Uuidv7Generator *g);

} // namespace kid

#endif
