/*
 * uid.cpp - Erlang uid layouts, d64 and base64url text, generator step.
 */
#include "core/uid.h"

#include "core/radix.h"
#include "core/no_postgres.h"

namespace kid {

static constexpr Alphabet
    base64url_alphabet("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", 6);

bool uid_fields_from_unix_us(int64_t unix_us, UidFields *f) noexcept
{
    if (unix_us < 0)
        return false;
    int64_t s = unix_us / 1000000;
    if (s / 1000000 > 0xFFFFF)
        return false;
    f->mega = static_cast<uint32_t>(s / 1000000);
    f->sec = static_cast<uint32_t>(s % 1000000);
    f->step = static_cast<uint32_t>((unix_us % 1000000) >> 10);
    f->seq = 0;
    f->node = 0;
    return true;
}

bool uid_fields_with_time(int64_t unix_us, uint64_t backfill_sequence, UidFields *f) noexcept
{
    if (!uid_fields_from_unix_us(unix_us, f))
        return false;
    f->seq = backfill_sequence & UID_SEQ_MAX;
    return true;
}

uint64_t uid_local_pack(const UidFields &f) noexcept
{
    return (static_cast<uint64_t>(f.mega & 0xFFFFF) << 44) |
           (static_cast<uint64_t>(f.sec & 0xFFFFF) << 24) |
           (static_cast<uint64_t>(f.step & 0x3FF) << 14) | (f.seq & UID_SEQ_MAX);
}

UidFields uid_local_unpack(uint64_t id) noexcept
{
    UidFields f;
    f.mega = static_cast<uint32_t>(id >> 44) & 0xFFFFF;
    f.sec = static_cast<uint32_t>(id >> 24) & 0xFFFFF;
    f.step = static_cast<uint32_t>(id >> 14) & 0x3FF;
    f.seq = static_cast<uint32_t>(id) & UID_SEQ_MAX;
    f.node = 0;
    return f;
}

const char *uid_local_invalid(uint64_t id) noexcept
{
    UidFields f = uid_local_unpack(id);
    if (f.sec > UID_MAX_SECOND)
        return "The seconds field is above 999999.";
    if (f.step >= UID_STEPS_PER_SECOND)
        return "The 1.024 ms step field is above 976.";
    return nullptr;
}

/* The 96 bits as a 128-bit integer, most significant first. */
using u128 = unsigned __int128;

static u128 global_bits(const UidGlobal &id) noexcept
{
    u128 v = 0;
    for (uint8_t b : id.bytes)
        v = (v << 8) | b;
    return v;
}

UidGlobal uid_global_pack(const UidFields &f, int interval) noexcept
{
    const unsigned i = static_cast<unsigned>(interval);
    u128 v = f.mega & 0xFFFFF;
    v = (v << (20 - i)) | ((f.sec & 0xFFFFF) >> i);
    v = (v << 32) | f.node;
    v = (v << i) | (f.sec & ((1u << i) - 1));
    v = (v << 10) | (f.step & 0x3FF);
    v = (v << 14) | (f.seq & UID_SEQ_MAX);
    UidGlobal id;
    for (size_t k = UID_GLOBAL_SIZE; k-- > 0;) {
        id.bytes[k] = static_cast<uint8_t>(v);
        v >>= 8;
    }
    return id;
}

UidFields uid_global_unpack(const UidGlobal &id, int interval) noexcept
{
    const unsigned i = static_cast<unsigned>(interval);
    u128 v = global_bits(id);
    UidFields f;
    f.seq = static_cast<uint32_t>(v & UID_SEQ_MAX);
    v >>= 14;
    f.step = static_cast<uint32_t>(v & 0x3FF);
    v >>= 10;
    uint32_t sec_low = static_cast<uint32_t>(v & ((1u << i) - 1));
    v >>= i;
    f.node = static_cast<uint32_t>(v & 0xFFFFFFFFu);
    v >>= 32;
    uint32_t sec_high = static_cast<uint32_t>(v & ((1u << (20 - i)) - 1));
    v >>= 20 - i;
    f.mega = static_cast<uint32_t>(v & 0xFFFFF);
    f.sec = (sec_high << i) | sec_low;
    return f;
}

const char *uid_global_invalid(const UidGlobal &id) noexcept
{
    /*
     * The step sits at the same place whatever the interval; the seconds do
     * not, but their top 10 bits (B >> 10) always come first, right after A
     * (20 - I >= 10).  So every id is checked for B >> 10 <= 976 (999999 >>
     * 10), which holds for every id packed from valid fields under every
     * interval; the rest of B is known only with the interval, and the
     * decoders check it (uid_global_seconds_valid).
     */
    u128 bits = global_bits(id);
    if (((bits >> 66) & 0x3FF) > static_cast<u128>(UID_MAX_SECOND >> 10))
        return "The seconds field is above 999999.";
    if (((bits >> 14) & 0x3FF) >= static_cast<u128>(UID_STEPS_PER_SECOND))
        return "The 1.024 ms step field is above 976.";
    return nullptr;
}

void uid_local_encode(uint64_t id, char *out) noexcept
{
    radix_encode_u64(d64_alphabet, Pad::trailing, id, out, UID_LOCAL_TEXT_LEN);
}

bool uid_local_decode(const char *text, size_t len, uint64_t *out) noexcept
{
    return radix_decode_u64(d64_alphabet, Pad::trailing, text, len, out, UID_LOCAL_TEXT_LEN);
}

void uid_global_encode(const UidGlobal &id, char *out) noexcept
{
    radix_encode(d64_alphabet, Pad::trailing, id.bytes, UID_GLOBAL_SIZE, out, UID_GLOBAL_TEXT_LEN);
}

bool uid_global_decode(const char *text, size_t len, UidGlobal *out) noexcept
{
    return radix_decode(d64_alphabet, Pad::trailing, text, len, out->bytes, UID_GLOBAL_SIZE,
                        UID_GLOBAL_TEXT_LEN);
}

void uid_local_encode_base64url(uint64_t id, char *out) noexcept
{
    radix_encode_u64(base64url_alphabet, Pad::trailing, id, out, UID_LOCAL_TEXT_LEN);
}

bool uid_local_decode_base64url(const char *text, size_t len, uint64_t *out) noexcept
{
    return radix_decode_u64(base64url_alphabet, Pad::trailing, text, len, out, UID_LOCAL_TEXT_LEN);
}

void uid_global_encode_base64url(const UidGlobal &id, char *out) noexcept
{
    radix_encode(base64url_alphabet, Pad::trailing, id.bytes, UID_GLOBAL_SIZE, out,
                 UID_GLOBAL_TEXT_LEN);
}

bool uid_global_decode_base64url(const char *text, size_t len, UidGlobal *out) noexcept
{
    return radix_decode(base64url_alphabet, Pad::trailing, text, len, out->bytes, UID_GLOBAL_SIZE,
                        UID_GLOBAL_TEXT_LEN);
}

uint32_t uid_node_fingerprint(uint32_t node_id) noexcept
{
    /*
     * MurmurHash3's 32-bit finaliser over the node id tagged with "kid" in
     * the top bytes: distinct node ids give distinct fingerprints (the
     * finaliser is a bijection), spread over the whole 32 bits.
     */
    uint32_t h = 0x6b696400u ^ node_id;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

uint64_t uid_word_from_unix_us(int64_t unix_us) noexcept
{
    int64_t s = unix_us / 1000000;
    int64_t linear = s * UID_STEPS_PER_SECOND + ((unix_us % 1000000) >> 10);
    return static_cast<uint64_t>(linear) << 14;
}

UidFields uid_fields_from_word(uint64_t word) noexcept
{
    uint64_t linear = word >> 14;
    uint64_t s = linear / UID_STEPS_PER_SECOND;
    UidFields f;
    f.mega = static_cast<uint32_t>(s / 1000000);
    f.sec = static_cast<uint32_t>(s % 1000000);
    f.step = static_cast<uint32_t>(linear % UID_STEPS_PER_SECOND);
    f.seq = static_cast<uint32_t>(word & UID_SEQ_MAX);
    f.node = 0;
    return f;
}

UidStep uid_step(uint64_t last, int64_t now_unix_us, int64_t trusted_us, uint64_t *next) noexcept
{
    uint64_t now = now_unix_us > 0 ? uid_word_from_unix_us(now_unix_us) : 0;
    if (now > (last | UID_SEQ_MAX)) {
        *next = now;
        return UidStep::ok;
    }
    if ((last & UID_SEQ_MAX) < UID_SEQ_MAX) {
        *next = last + 1;
        return (now >> 14) == (last >> 14) ? UidStep::same_step : UidStep::ahead;
    }
    /* Sequence exhausted in this step: move on to the next step, unless it is too far ahead. */
    uint64_t step = (last >> 14) + 1;
    int64_t bound_us = now_unix_us > trusted_us ? now_unix_us : trusted_us;
    uint64_t bound = bound_us > 0 ? uid_word_from_unix_us(bound_us) : 0;
    if (step > (bound >> 14) + UID_MAX_AHEAD_STEPS)
        return UidStep::wait;
    *next = step << 14;
    return UidStep::next_step;
}

int64_t uid_interval_change_guard_us(int64_t mark_unix_us, int old_interval,
                                     int new_interval) noexcept
{
    if (old_interval == new_interval || mark_unix_us <= 0)
        return 0;
    int m = old_interval > new_interval ? old_interval : new_interval;
    int64_t s = mark_unix_us / 1000000;
    int64_t mega = s / 1000000;
    int64_t sec = s % 1000000;
    int64_t next_block = ((sec >> m) + 1) << m;
    if (next_block >= 1000000)
        return (mega + 1) * 1000000 * 1000000;
    return (mega * 1000000 + next_block) * 1000000;
}

} // namespace kid
