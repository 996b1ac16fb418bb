/*
 * tid.cpp - AT Protocol tid codec and record-key syntax.
 */
#include "tid.h"

#include "radix.h"
#include "no_postgres.h"

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

} // namespace kid
