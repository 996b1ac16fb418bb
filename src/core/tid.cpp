/*
 * tid.cpp - AT Protocol tid codec and record-key syntax.
 */
#include "core/tid.h"

#include "core/radix.h"
#include "core/no_postgres.h"

namespace kid {

void tid_encode(uint64_t tid, char *out) noexcept
{
    radix_encode_u64(tid_alphabet, Pad::leading, tid, out, TID_TEXT_LEN);
}

bool tid_decode(const char *text, size_t len, uint64_t *out) noexcept
{
    /*
     * 13 digits hold 65 bits; the leading spare bit must be zero, which is
     * exactly the syntax's first-character class 2-7 a-j.
     */
    return radix_decode_u64(tid_alphabet, Pad::leading, text, len, out, TID_TEXT_LEN);
}

bool atproto_rkey_is_valid(const char *text, size_t len) noexcept
{
    if (len < 1 || len > 512)
        return false;
    if ((len == 1 && text[0] == '.') || (len == 2 && text[0] == '.' && text[1] == '.'))
        return false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '-' || c == '_' || c == ':' || c == '~';
        if (!ok)
            return false;
    }
    return true;
}

bool tid_with_time(int64_t unix_us, unsigned node_clock_id, uint64_t backfill_sequence,
                   uint64_t *out) noexcept
{
    if (unix_us < 0 || unix_us > TID_MAX_UNIX_US || node_clock_id > TID_CLOCK_MAX)
        return false;
    /* The 1023 clock ids other than node_clock_id, in order. */
    unsigned clock_id = static_cast<unsigned>(backfill_sequence % TID_CLOCK_MAX);
    if (clock_id >= node_clock_id)
        clock_id++;
    *out = tid_pack(unix_us, clock_id);
    return true;
}

} // namespace kid
