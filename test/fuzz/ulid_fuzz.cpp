// libFuzzer target: the ULID text codec (src/core/ulid.h).
#include "fuzz.h"
#include "core/ulid.h"

using namespace kid;

static int digit_value(char c)
{
    static const char alphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
    if (c >= 'a' && c <= 'z')
        c = static_cast<char>(c - 'a' + 'A');
    const char *at = c != '\0' ? std::strchr(alphabet, c) : nullptr;
    return at ? static_cast<int>(at - alphabet) : -1;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = reinterpret_cast<const char *>(data);

    // Text: accepted exactly when it is 26 digits of either case, the first one 0 to 7.
    bool syntax = size == ULID_TEXT_LEN && digit_value(text[0]) >= 0 && digit_value(text[0]) <= 7;
    for (size_t i = 1; syntax && i < size; i++)
        syntax = digit_value(text[i]) >= 0;
    uint8_t u[ULID_BYTES];
    bool ok = ulid_decode(text, size, u);
    FUZZ_CHECK(ok == syntax);
    if (ok) {
        // Written back in capitals: the same digits.
        char again[ULID_TEXT_LEN];
        ulid_encode(u, again);
        for (size_t i = 0; i < ULID_TEXT_LEN; i++)
            FUZZ_CHECK(digit_value(again[i]) == digit_value(text[i]) &&
                       !(again[i] >= 'a' && again[i] <= 'z'));
    }

    // Bytes: every 16 bytes are a ULID, whose text decodes back to them.
    if (size >= ULID_BYTES) {
        char out[ULID_TEXT_LEN];
        ulid_encode(data, out);
        uint8_t back[ULID_BYTES];
        FUZZ_CHECK(ulid_decode(out, ULID_TEXT_LEN, back) && memcmp(back, data, ULID_BYTES) == 0);
        FUZZ_CHECK(ulid_unix_ms(data) >= 0 && ulid_unix_ms(data) < (INT64_C(1) << 48));
    }
    return 0;
}
