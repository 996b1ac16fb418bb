/*
 * koid.h - the koid, a 64-bit snowflake: layout, hex codec, generator step.
 *
 * 64 bits, big-endian: 42-bit milliseconds since the epoch | 5-bit
 * datacenter | 5-bit worker | 12-bit counter.  Datacenter and worker
 * together are the 10-bit generator id.  Text: the 8 bytes as 16 lowercase
 * hex digits.  Compared unsigned, so order stays time order after the
 * 42-bit time passes 2^41 (2039-09-07 with the 1970 epoch), when the same
 * bits as a signed bigint turn negative.
 */
#ifndef KID_CORE_KOID_H
#define KID_CORE_KOID_H

#include <cstddef>
#include <cstdint>

namespace kid {

constexpr size_t KOID_TEXT_LEN = 16;
constexpr int64_t KOID_MAX_MS = (INT64_C(1) << 42) - 1;
constexpr unsigned KOID_COUNTER_MAX = 4095;
constexpr unsigned KOID_GENERATOR_MAX = 1023;

inline uint64_t koid_pack(int64_t ms_since_epoch, unsigned generator_id, unsigned counter) noexcept
{
    return (static_cast<uint64_t>(ms_since_epoch) << 22) |
           (static_cast<uint64_t>(generator_id & KOID_GENERATOR_MAX) << 12) |
           (counter & KOID_COUNTER_MAX);
}

inline int64_t koid_ms(uint64_t koid) noexcept
{
    return static_cast<int64_t>(koid >> 22);
}
inline unsigned koid_generator_id(uint64_t koid) noexcept
{
    return (koid >> 12) & KOID_GENERATOR_MAX;
}
inline unsigned koid_datacenter(uint64_t koid) noexcept
{
    return (koid >> 17) & 31;
}
inline unsigned koid_worker(uint64_t koid) noexcept
{
    return (koid >> 12) & 31;
}
inline unsigned koid_counter(uint64_t koid) noexcept
{
    return koid & KOID_COUNTER_MAX;
}

/* Writes exactly KOID_TEXT_LEN lowercase hex digits, no terminator. */
void koid_encode(uint64_t koid, char *out) noexcept;
/* Strict: exactly 16 of [0-9a-f]. */
bool koid_decode(const char *text, size_t len, uint64_t *out) noexcept;

/*
 * The server-wide generator.  All backends share one word: the last
 * (milliseconds since the epoch << 12 | counter) handed out.  A pure step;
 * the caller advances the word with compare-and-swap, and on wait sleeps
 * and reads the clock again.  The word's layout is known only here: other
 * code goes through the accessors below.
 */
inline uint64_t koid_state(int64_t ms_since_epoch, unsigned counter) noexcept
{
    return (static_cast<uint64_t>(ms_since_epoch) << 12) | (counter & KOID_COUNTER_MAX);
}
inline int64_t koid_state_ms(uint64_t state) noexcept
{
    return static_cast<int64_t>(state >> 12);
}
inline unsigned koid_state_counter(uint64_t state) noexcept
{
    return state & KOID_COUNTER_MAX;
}
/* The koid a state word stands for, made by `generator_id`. */
inline uint64_t koid_from_state(uint64_t state, unsigned generator_id) noexcept
{
    return koid_pack(koid_state_ms(state), generator_id, koid_state_counter(state));
}
/* The state that counts millisecond `ms_since_epoch` as used up: the generator's floor. */
inline uint64_t koid_state_floor(int64_t ms_since_epoch) noexcept
{
    return koid_state(ms_since_epoch, KOID_COUNTER_MAX);
}
/* The first and the last Unix microsecond of a millisecond since `epoch_ms`. */
inline int64_t koid_ms_start_unix_us(int64_t ms_since_epoch, int64_t epoch_ms) noexcept
{
    return (ms_since_epoch + epoch_ms) * 1000;
}
inline int64_t koid_ms_end_unix_us(int64_t ms_since_epoch, int64_t epoch_ms) noexcept
{
    return koid_ms_start_unix_us(ms_since_epoch + 1, epoch_ms) - 1;
}

/*
 * A koid for a caller-given time (koid_new_with_time, backfills): the
 * millisecond since `epoch_ms` holding `unix_us`, `generator_id`, and the
 * low 12 bits of `backfill_sequence` as the counter, so any 4096
 * consecutive sequence values give distinct ids for one time, whatever the
 * times of the others (not a count per millisecond), then they repeat.
 * False for a time before the epoch or past the 42-bit millisecond.
 */
bool koid_with_time(int64_t unix_us, int64_t epoch_ms, unsigned generator_id,
                    uint64_t backfill_sequence, uint64_t *out) noexcept;

enum class KoidStep {
    ok,
    overflow,     /* 4096 ids in this millisecond already: wait for the next (or fail) */
    clock_behind, /* the clock is behind the last id's millisecond: wait (up to a limit) */
    out_of_range  /* the time needs more than 42 bits (or is before the epoch) */
};

inline KoidStep koid_step(uint64_t last, int64_t now_ms_since_epoch, uint64_t *next) noexcept
{
    if (now_ms_since_epoch < 0 || now_ms_since_epoch > KOID_MAX_MS)
        return KoidStep::out_of_range;
    int64_t last_ms = koid_state_ms(last);
    unsigned counter = koid_state_counter(last);
    if (now_ms_since_epoch > last_ms) {
        *next = koid_state(now_ms_since_epoch, 0);
        return KoidStep::ok;
    }
    if (now_ms_since_epoch < last_ms)
        return KoidStep::clock_behind;
    if (counter >= KOID_COUNTER_MAX)
        return KoidStep::overflow;
    *next = last + 1;
    return KoidStep::ok;
}

} // namespace kid

#endif
