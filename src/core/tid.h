/*
 * tid.h - the AT Protocol timestamp identifier (TID): layout, codec, the
 * record-key syntax check, and the server-wide generator step.
 *
 * A tid is 64 bits: bit 63 zero in every tid kid makes, bits 62..10 the
 * microseconds since 1970-01-01 UTC (53 bits), bits 9..0 the clock id.
 * Text: the 64 bits as 13 base32-sortable digits (65 bits, the top one
 * always 0), so the first digit is one of 2-7 a-j.  First digits c..j set
 * bit 63: the protocol's syntax allows them, so kid accepts and stores them
 * (they sort after all others) and reads their time from bits 62..10 only.
 */
#ifndef KID_CORE_TID_H
#define KID_CORE_TID_H

#include <cstddef>
#include <cstdint>

namespace kid {

constexpr size_t TID_TEXT_LEN = 13;
constexpr int TID_CLOCK_BITS = 10;
constexpr uint64_t TID_CLOCK_MAX = (1u << TID_CLOCK_BITS) - 1;
constexpr int64_t TID_MAX_UNIX_US = (INT64_C(1) << 53) - 1;

inline uint64_t tid_pack(int64_t unix_us, unsigned clock_id) noexcept
{
    return (static_cast<uint64_t>(unix_us) << TID_CLOCK_BITS) | (clock_id & TID_CLOCK_MAX);
}

/* Microseconds since 1970 from bits 62..10 (bit 63 ignored). */
inline int64_t tid_unix_us(uint64_t tid) noexcept
{
    return static_cast<int64_t>((tid >> TID_CLOCK_BITS) & static_cast<uint64_t>(TID_MAX_UNIX_US));
}

inline unsigned tid_clock_id(uint64_t tid) noexcept
{
    return static_cast<unsigned>(tid & TID_CLOCK_MAX);
}

/* Writes exactly TID_TEXT_LEN characters, no terminator. */
void tid_encode(uint64_t tid, char *out) noexcept;

/*
 * Strict: exactly the protocol's syntax
 * ^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$.
 */
bool tid_decode(const char *text, size_t len, uint64_t *out) noexcept;

/*
 * Record keys: 1 to 512 characters of A-Za-z0-9 . - _ : ~, and neither "."
 * nor "..".
 */
bool atproto_rkey_is_valid(const char *text, size_t len) noexcept;

/*
 * A tid for a caller-given time (tid_new_with_time, backfills): the
 * microsecond of `unix_us`, and a clock id taken from `backfill_sequence`
 * that skips `node_clock_id`, the clock id tid_new() gives this server's
 * ids, so that a backfill id never equals one of those.  Any 1023
 * consecutive sequence values give distinct clock ids, whatever the times
 * (one sequence for all times: a clock id is the sequence mod 1023, not a
 * count per microsecond), then they repeat.  False for a
 * time before 1970 or past the 53-bit microsecond (no id).
 */
bool tid_with_time(int64_t unix_us, unsigned node_clock_id, uint64_t backfill_sequence,
                   uint64_t *out) noexcept;

/*
 * The server-wide generator.  All backends share one 64-bit word: the last
 * microsecond handed out.  The next id takes the clock's microsecond when
 * the clock is ahead of the word, else last + 1, so ids are strictly
 * increasing per server even when the clock stands still or goes back.
 *
 * The format holds one id per microsecond (per clock id), and a backend can
 * ask for several per microsecond: unbounded, last + 1 would let volume
 * push tids ahead of the clock (15 million calls in a few seconds put them
 * 15 s in the future), so that a query `WHERE id < now()` misses committed
 * rows.  So last + 1 may be at most TID_MAX_AHEAD_US above the clock; past
 * that the step says wait, and the caller sleeps and tries again, which caps
 * one server at about one tid per microsecond, the format's own rate.
 * 1 ms: well under anything a time comparison of tids cares about, and
 * enough slack that a burst of up to 1000 ids never waits.
 *
 * Below the trusted time (src/core/trusted_time.h: the highest clock
 * reading or floor, advanced by the monotonic time elapsed since) the clock
 * went back, or a restart or promotion started the generator above a floor
 * the clock has not reached.  The ids then continue at last + 1, bounded
 * the same way but by the trusted time instead of the clock: at most
 * TID_MAX_AHEAD_US above it.  So they are never further ahead of the clock
 * than the step back (or the floor) was, plus 1 ms, and the generator never
 * builds up a lead the clock has to catch up with before the next caller
 * may go on.
 *
 * A pure step: the caller advances the word with compare-and-swap.
 */
constexpr int64_t TID_MAX_AHEAD_US = 1000;

enum class TidStep {
    ok,    /* the clock was ahead: its time was used */
    ahead, /* the clock had not passed the last id: last + 1, within TID_MAX_AHEAD_US of it */
    clock_behind, /* the clock is below the trusted time: last + 1, within TID_MAX_AHEAD_US of
                     the trusted time */
    wait          /* last + 1 would be more than TID_MAX_AHEAD_US ahead of both */
};

inline TidStep tid_step(uint64_t last_us, int64_t now_us, int64_t trusted_us,
                        uint64_t *next_us) noexcept
{
    if (now_us > 0 && static_cast<uint64_t>(now_us) > last_us) {
        *next_us = static_cast<uint64_t>(now_us);
        return TidStep::ok;
    }
    int64_t bound = now_us > trusted_us ? now_us : trusted_us;
    if (bound < 0 || last_us + 1 > static_cast<uint64_t>(bound) + TID_MAX_AHEAD_US)
        return TidStep::wait;
    *next_us = last_us + 1;
    return now_us < trusted_us ? TidStep::clock_behind : TidStep::ahead;
}

} // namespace kid

#endif
