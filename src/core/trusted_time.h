/*
 * trusted_time.h - the time a server-wide generator (tid, uid) may count
 * on while the system clock reads below its last id.
 *
 * When the clock goes back, or a restart or promotion starts a generator
 * above a floor the clock has not reached, the next ids cannot take the
 * clock's time: they continue above the last one.  Unbounded, that lets
 * volume run the ids ahead of any real time (20 million calls in 4 s put
 * tids 20 s in the future), and once the clock is back every caller waits
 * for it to pass them.  Bounded by the clock instead, the generator would
 * stall for as long as the clock is behind.
 *
 * So each generator keeps anchors: a time it knows it has reached (a clock
 * reading, a floor) together with CLOCK_MONOTONIC at that moment.  An anchor
 * stays valid as time passes by advancing with the monotonic clock, which
 * no clock step moves; the trusted time is the highest anchor advanced to
 * now.  As all anchors advance alike, one number is enough: the highest
 * offset (anchor time - monotonic time at the anchor), and trusted time =
 * that offset + monotonic now.  It is at least every clock reading since
 * start-up and at least every floor set since, and it advances at the rate
 * of real time, so ids bounded by it (plus the scheme's small allowance)
 * are never further ahead of the clock than the largest step back or floor
 * was, and never need to wait for the clock to catch up.
 *
 * Pure arithmetic; the caller keeps the highest offset in a shared word
 * (offset_word keeps the order of offsets in an unsigned word, so it can be
 * raised with compare-and-swap).
 */
#ifndef KID_CORE_TRUSTED_TIME_H
#define KID_CORE_TRUSTED_TIME_H

#include <cstdint>

namespace kid {

/* The offset of an anchor: a time reached (Unix us) less CLOCK_MONOTONIC (us) at that moment. */
inline int64_t trusted_offset(int64_t unix_us, int64_t monotonic_us) noexcept
{
    return unix_us - monotonic_us;
}

/* The trusted time now, from the highest offset and CLOCK_MONOTONIC now. */
inline int64_t trusted_time(int64_t highest_offset, int64_t monotonic_us) noexcept
{
    return highest_offset + monotonic_us;
}

/*
 * Offsets as unsigned words in the same order (the sign bit flipped); word 0
 * is the lowest offset, "no anchor yet", whose trusted time is far in the
 * past for any monotonic reading.
 */
inline uint64_t trusted_offset_word(int64_t offset) noexcept
{
    return static_cast<uint64_t>(offset) ^ (UINT64_C(1) << 63);
}

inline int64_t trusted_offset_of_word(uint64_t word) noexcept
{
    return static_cast<int64_t>(word ^ (UINT64_C(1) << 63));
}

/*
 * The half-pace carry of a per-backend scheme's commit horizon (sno,
 * uuidv7: src/pg/horizon.cpp).  A reader imposes a clock reading R, taken
 * at CLOCK_MONOTONIC M, on every later id; while the clock reads below R
 * (it stepped back, or a restart started the horizon ahead of it) ids take
 * R carried forward at half the pace of real time, R + (now - M) / 2, which
 * a clock S behind catches up with after 2 S, so that the carry ends.
 *
 * Of several readings the one whose carry is highest counts, and stays the
 * highest (all carries advance alike), so one number is enough: the
 * highest carry key 2 R - M, carried time = (key + monotonic now) / 2.  A
 * reading taken while the clock is below the carry leaves it in place (its
 * key is lower: the carry goes on); one taken once the clock has caught up
 * replaces it (its key is higher).  Each carry is thus its own step's: a
 * reading's key never pairs with another reading's monotonic time, which
 * would carry later readings ahead by half of an old step, for good.
 * Keys are kept as words like offsets (trusted_offset_word).
 */
inline int64_t carry_key(int64_t unix_us, int64_t monotonic_us) noexcept
{
    return 2 * unix_us - monotonic_us;
}

inline int64_t carried_time(int64_t highest_key, int64_t monotonic_us) noexcept
{
    return (highest_key + monotonic_us) / 2;
}

} // namespace kid

#endif
