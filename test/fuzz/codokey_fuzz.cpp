// libFuzzer target: codokey keys under fixed and fuzzed contexts.
//
// Input: byte 0 picks the mode and the context, then
//   decode mode: the rest is a key;
//   encode mode: a precision byte and a 64-bit time follow.
// A codokey is one-to-one within its context: an accepted key must come
// back unchanged from both encoders, and an encoded time must decode to
// the earliest instant of its key, which encodes to the same key.
#include "core/codokey.h"
#include "fuzz.h"

using namespace kid;

static const CodokeyContext CONTEXTS[] = {
    {1970, 3265, 9},                                                   /* the default */
    {2000, 2099, 999},   {CODOKEY_YEAR_MIN, CODOKEY_YEAR_MAX, 999999}, /* the widest */
    {2024, 2024, 99},                                                  /* a one-year span */
    {-1000, 1000, 9999}, {0, 0, 999999},
};
constexpr int NCONTEXTS = sizeof(CONTEXTS) / sizeof(CONTEXTS[0]);

static CodokeyContext pick_context(FuzzReader &r, uint8_t selector)
{
    int n = selector % 8;
    if (n < NCONTEXTS)
        return CONTEXTS[n];
    /* A fuzzed context, often valid: a span from a fuzzed year, one of the split maxima. */
    CodokeyContext ctx;
    ctx.since = static_cast<int32_t>(r.u32());
    uint32_t span = r.u32();
    ctx.until = static_cast<int32_t>(static_cast<uint32_t>(ctx.since) +
                                     (span & 0x8000000 ? span : span % 4096));
    static const int64_t maxima[8] = {9, 99, 999, 9999, 99999, 999999, 0, 9999999};
    ctx.split_max = maxima[r.byte() % 8];
    return ctx;
}

/* The instant of fields, computed wide so that an overflow in the core shows. */
static __int128 wide_unix_us(const CodokeyFields &f, int64_t split_max)
{
    int64_t split_unit = 1000000 / (split_max + 1);
    __int128 days = codokey_days_from_civil(f.year, f.month, f.day);
    return ((days * 24 + f.hour) * 60 + f.minute) * static_cast<__int128>(60000000) +
           static_cast<__int128>(f.second) * 1000000 + static_cast<__int128>(f.split) * split_unit;
}

static void check_key(const CodokeyContext &ctx, const char *key, size_t len,
                      const CodokeyFields &f)
{
    FUZZ_CHECK(f.precision >= 0 && f.precision <= 6);
    FUZZ_CHECK(codokey_length(ctx, f.precision) == static_cast<int>(len));
    FUZZ_CHECK(f.year >= ctx.since && f.year <= ctx.until);
    FUZZ_CHECK(f.month >= 1 && f.month <= 12);
    FUZZ_CHECK(f.day >= 1 && f.day <= codokey_days_in_month(f.year, f.month));
    FUZZ_CHECK(f.hour >= 0 && f.hour <= 23 && f.minute >= 0 && f.minute <= 59);
    FUZZ_CHECK(f.second >= 0 && f.second <= 59 && f.split >= 0 && f.split <= ctx.split_max);
    FUZZ_CHECK(wide_unix_us(f, ctx.split_max) == f.unix_us);

    char again[CODOKEY_MAX_LEN];
    size_t again_len = 0;
    FUZZ_CHECK(codokey_encode_fields(ctx, f, again, &again_len) == CodokeyStatus::ok);
    FUZZ_CHECK(again_len == len && std::memcmp(again, key, len) == 0);
    again_len = 0;
    FUZZ_CHECK(codokey_encode(ctx, f.unix_us, f.precision, again, &again_len) == CodokeyStatus::ok);
    FUZZ_CHECK(again_len == len && std::memcmp(again, key, len) == 0);
}

static void decode_mode(const CodokeyContext &ctx, const char *key, size_t len)
{
    CodokeyFields f;
    CodokeyStatus st = codokey_decode(ctx, key, len, &f);
    CodokeyStatus ctx_st = codokey_validate_context(ctx);
    if (ctx_st != CodokeyStatus::ok) {
        FUZZ_CHECK(st == ctx_st);
        return;
    }
    bool chars = true;
    for (size_t i = 0; i < len; i++)
        chars = chars && codokey_valid_char(key[i]);
    bool length = false;
    for (int p = 0; p <= 6; p++)
        length = length || codokey_length(ctx, p) == static_cast<int>(len);
    switch (st) {
    case CodokeyStatus::ok:
        FUZZ_CHECK(chars && length);
        check_key(ctx, key, len, f);
        break;
    case CodokeyStatus::bad_character:
        FUZZ_CHECK(!chars);
        break;
    case CodokeyStatus::bad_length:
        FUZZ_CHECK(chars && !length);
        break;
    case CodokeyStatus::year_out_of_range:
    case CodokeyStatus::field_out_of_range:
        FUZZ_CHECK(chars && length);
        break;
    default:
        FUZZ_CHECK(!"unexpected status from codokey_decode");
    }
}

static void encode_mode(const CodokeyContext &ctx, int precision, int64_t unix_us)
{
    char key[CODOKEY_MAX_LEN];
    size_t len = 0;
    CodokeyStatus st = codokey_encode(ctx, unix_us, precision, key, &len);
    if (st != CodokeyStatus::ok) {
        FUZZ_CHECK(st == codokey_validate_context(ctx) || st == CodokeyStatus::bad_precision ||
                   st == CodokeyStatus::year_out_of_range);
        return;
    }
    FUZZ_CHECK(len >= 1 && len <= CODOKEY_MAX_LEN);
    CodokeyFields f;
    FUZZ_CHECK(codokey_decode(ctx, key, len, &f) == CodokeyStatus::ok);
    FUZZ_CHECK(f.precision == precision);
    FUZZ_CHECK(f.unix_us <= unix_us);
    check_key(ctx, key, len, f);

    // A coarser key is a prefix of a finer one.
    if (precision < CODOKEY_PRECISION_SPLIT) {
        char finer[CODOKEY_MAX_LEN];
        size_t finer_len = 0;
        FUZZ_CHECK(codokey_encode(ctx, unix_us, precision + 1, finer, &finer_len) ==
                   CodokeyStatus::ok);
        FUZZ_CHECK(finer_len > len && std::memcmp(finer, key, len) == 0);
    }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    FuzzReader r{data + 1, size - 1};
    uint8_t selector = data[0];
    CodokeyContext ctx = pick_context(r, selector);
    if (selector & 0x80) {
        int precision = static_cast<int8_t>(r.byte());
        if (precision >= 0)
            precision %= 8; /* mostly valid, sometimes 7 */
        encode_mode(ctx, precision, static_cast<int64_t>(r.u64()));
    } else {
        decode_mode(ctx, reinterpret_cast<const char *>(r.data), r.size);
    }
    return 0;
}
