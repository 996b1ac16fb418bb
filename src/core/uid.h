/*
 * uid.h - k-ordered ids of the Erlang uid library: local (64-bit) and
 * global (96-bit) layouts, d64 text, the server-wide generator step.
 *
 * Time is Erlang's {A, B, C} (megaseconds, seconds 0..999999, microseconds
 * 0..999999) of which only C >> 10 is kept: steps of 1.024 ms, 0..976 per
 * second.
 *   local  (64 bits): A:20 | B:20 | C>>10:10 | Seq:14
 *   global (96 bits): A:20 | B>>I:(20-I) | Node:32 | B&(2^I-1):I | C>>10:10 | Seq:14
 * with the neighbourhood interval I in 5..10: within a 2^I-second window
 * global ids sort by node first, so order holds across nodes whose clocks
 * differ by less than the window.  I is not stored in the id; decoding a
 * global id needs it.
 *
 * Text ("d64"): 6 bits a character, alphabet
 * .0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz (ASCII
 * order, so text sorts like the bits), spare tail bits zero: 11 characters
 * for local ids, 16 for global ones.
 */
#ifndef KID_CORE_UID_H
#define KID_CORE_UID_H

#include <cstddef>
#include <cstdint>

namespace kid {

constexpr size_t UID_LOCAL_TEXT_LEN = 11;
constexpr size_t UID_GLOBAL_SIZE = 12;
constexpr size_t UID_GLOBAL_TEXT_LEN = 16;
constexpr unsigned UID_SEQ_MAX = 16383;
constexpr int64_t UID_STEPS_PER_SECOND = 977; /* C >> 10 is 0..976 */
constexpr int UID_INTERVAL_MIN = 5;
constexpr int UID_INTERVAL_MAX = 10;
constexpr int UID_INTERVAL_DEFAULT = 8;
constexpr uint32_t UID_MAX_SECOND = 999999; /* B */

struct UidFields {
    uint32_t mega; /* A: megaseconds since 1970 (20 bits) */
    uint32_t sec;  /* B: 0..999999 */
    uint32_t step; /* C >> 10: 0..976 */
    uint32_t seq;  /* 0..16383 */
    uint32_t node; /* global ids only */
};

struct UidGlobal {
    uint8_t bytes[UID_GLOBAL_SIZE];
};

/* C: the microsecond within the second at which the id's 1.024 ms step starts. */
/* The last microsecond a uid can hold: the end of megasecond 2^20 - 1 (A's 20 bits), 35198-01-19 07:06:39.999999 UTC. */
constexpr int64_t UID_MAX_UNIX_US = (INT64_C(0xFFFFF) + 1) * 1000000 * 1000000 - 1;

inline uint32_t uid_step_us(const UidFields &f) noexcept
{
    return f.step << 10;
}

/* Unix microseconds of the first instant of the id's 1.024 ms step. */
inline int64_t uid_unix_us(const UidFields &f) noexcept
{
    return (static_cast<int64_t>(f.mega) * 1000000 + f.sec) * 1000000 + uid_step_us(f);
}

/* The last Unix microsecond of the id's step. */
inline int64_t uid_step_end_us(const UidFields &f) noexcept
{
    return uid_unix_us(f) + 1023;
}

/* The fields of the step holding a Unix-microsecond time; false before 1970 or past A's 20 bits. */
bool uid_fields_from_unix_us(int64_t unix_us, UidFields *f) noexcept;

/*
 * The fields of a uid or uid_global for a caller-given time
 * (uid_new_with_time, uid_global_new_with_time; backfills): the step
 * holding `unix_us`, and the low 14 bits of `backfill_sequence` as the
 * sequence, so any 16384 consecutive sequence values give distinct ids for
 * one time, whatever the times of the others (not a count per step), then
 * they repeat.  The node is the caller's to set.  False as for
 * uid_fields_from_unix_us.
 */
bool uid_fields_with_time(int64_t unix_us, uint64_t backfill_sequence, UidFields *f) noexcept;

uint64_t uid_local_pack(const UidFields &f) noexcept;
UidFields uid_local_unpack(uint64_t id) noexcept;
/* NULL when every field is in range, else the reason. */
const char *uid_local_invalid(uint64_t id) noexcept;

UidGlobal uid_global_pack(const UidFields &f, int interval) noexcept;
UidFields uid_global_unpack(const UidGlobal &id, int interval) noexcept;
/*
 * NULL when the step is at most 976 and the top 10 bits of the seconds (the
 * part every interval puts before the node) are at most 976, else the
 * reason.  The full seconds field depends on the interval: check the
 * unpacked fields with uid_global_seconds_valid before using them as a time.
 */
const char *uid_global_invalid(const UidGlobal &id) noexcept;
inline bool uid_global_seconds_valid(const UidFields &f) noexcept
{
    return f.sec <= UID_MAX_SECOND;
}

void uid_local_encode(uint64_t id, char *out) noexcept;
bool uid_local_decode(const char *text, size_t len, uint64_t *out) noexcept;
void uid_global_encode(const UidGlobal &id, char *out) noexcept;
bool uid_global_decode(const char *text, size_t len, UidGlobal *out) noexcept;

/* The same bits in RFC 4648 base64url (the library's older, unsorted text form). */
void uid_local_encode_base64url(uint64_t id, char *out) noexcept;
bool uid_local_decode_base64url(const char *text, size_t len, uint64_t *out) noexcept;
void uid_global_encode_base64url(const UidGlobal &id, char *out) noexcept;
bool uid_global_decode_base64url(const char *text, size_t len, UidGlobal *out) noexcept;

/* A 32-bit node fingerprint derived from a node id (a fixed integer mix). */
uint32_t uid_node_fingerprint(uint32_t node_id) noexcept;

/*
 * The server-wide generator: one word, (linear step since 1970 << 14 | seq),
 * where the linear step is second * 977 + (C >> 10).  The next id takes the
 * clock's step with sequence 0 when the clock is ahead; otherwise the last
 * step with the next sequence, and after sequence 16383 the following step,
 * as long as that step is at most UID_MAX_AHEAD_STEPS above the clock's (as
 * with tid, volume must not push ids into the future): further ahead the
 * step says wait.  While the clock reads below the trusted time
 * (src/core/trusted_time.h) the bound is the trusted time's step instead,
 * as for tid (see tid_step): no volume runs the ids ahead of it, and no
 * lead is left for the clock to catch up with.  Never repeats.  A pure
 * step; the caller does compare-and-swap.
 */
constexpr int64_t UID_MAX_AHEAD_STEPS = 1;

enum class UidStep {
    ok,        /* the clock's step, sequence 0 */
    same_step, /* the clock is in the last id's step: next sequence */
    ahead,     /* the last id's step is above the clock's: next sequence */
    next_step, /* sequence exhausted: the step after the last id's */
    wait       /* sequence exhausted and the next step is too far ahead of the clock */
};

UidStep uid_step(uint64_t last, int64_t now_unix_us, int64_t trusted_us, uint64_t *next) noexcept;
/* The word for a time (sequence 0), for floors and bounds. */
uint64_t uid_word_from_unix_us(int64_t unix_us) noexcept;
UidFields uid_fields_from_word(uint64_t word) noexcept;
/* The word that counts the step holding `unix_us` as used up: the generator's floor. */
inline uint64_t uid_word_floor(int64_t unix_us) noexcept
{
    return uid_word_from_unix_us(unix_us) | UID_SEQ_MAX;
}

/*
 * kid.uid_interval moves the node fingerprint inside a uid_global, so an
 * id made under one interval can have the same 96 bits as one made under
 * another: with intervals I and J (M = max(I, J)) the fields A, B >> M,
 * step and sequence must match, i.e. both seconds lie in one aligned
 * 2^M-second block of the same megasecond, and then some fingerprints line
 * up (0x92492492 with 8 and 5, 64 s apart).  Ids whose seconds lie in a
 * later block never collide with them.  So after an interval change,
 * uid_global ids must wait for this time: the first second of the next
 * 2^max(old, new)-second block above `mark_unix_us` (the newest time ids
 * of the old interval may hold), or of the next megasecond when the block
 * would pass it.  0 when the intervals are equal or there is no mark.
 */
int64_t uid_interval_change_guard_us(int64_t mark_unix_us, int old_interval,
                                     int new_interval) noexcept;

} // namespace kid

#endif
