// libFuzzer target: the AT Protocol tid text codec, its 64-bit (bigint) form,
// and the record-key syntax check.
#include "fuzz.h"
#include "core/tid.h"

using namespace kid;

static bool in_class(char c, const char *chars)
{
    return c != '\0' && std::strchr(chars, c) != nullptr;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = reinterpret_cast<const char *>(data);

    // Text: accepted exactly when the protocol's regular expression matches.
    bool syntax = size == TID_TEXT_LEN && in_class(text[0], "234567abcdefghij");
    for (size_t i = 1; syntax && i < size; i++)
        syntax = in_class(text[i], "234567abcdefghijklmnopqrstuvwxyz");
    uint64_t tid;
    bool ok = tid_decode(text, size, &tid);
    FUZZ_CHECK(ok == syntax);
    if (ok) {
        char again[TID_TEXT_LEN];
        tid_encode(tid, again);
        FUZZ_CHECK(same_text(again, data, TID_TEXT_LEN));
        FUZZ_CHECK((tid >> 63) == static_cast<uint64_t>(text[0] >= 'c' && text[0] <= 'j'));
    }

    // The 64-bit form: every value is a tid (bit 63 included).
    if (size >= 8) {
        FuzzReader r{data, size};
        uint64_t v = r.u64();
        char out[TID_TEXT_LEN];
        tid_encode(v, out);
        uint64_t back;
        FUZZ_CHECK(tid_decode(out, TID_TEXT_LEN, &back) && back == v);
        // Fields: time and clock id put back together give the value (bit 63 aside).
        FUZZ_CHECK(tid_unix_us(v) >= 0 && tid_unix_us(v) <= TID_MAX_UNIX_US);
        FUZZ_CHECK(tid_pack(tid_unix_us(v), tid_clock_id(v)) == (v & ~(UINT64_C(1) << 63)));
    }

    // Record keys: a pure predicate; check it against its definition.
    bool rkey = size >= 1 && size <= 512 && !(size == 1 && text[0] == '.') &&
                !(size == 2 && text[0] == '.' && text[1] == '.');
    for (size_t i = 0; rkey && i < size; i++)
        rkey = in_class(text[i],
                        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.-_:~");
    FUZZ_CHECK(atproto_rkey_is_valid(text, size) == rkey);
    return 0;
}
