/*
 * codokey_test.cpp - unit tests of the PostgreSQL-free codokey core.
 *
 * The calendar oracle is the C library's gmtime_r/timegm rather than the
 * code under test, so a shared mistake in the civil arithmetic cannot hide.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <random>
#include <set>
#include <string>

#include "core/codokey.h"

using namespace kid;

namespace {

constexpr int64_t SEC = 1000000;
constexpr int64_t DAY = 86400 * SEC;

CodokeyContext context(int32_t since, int32_t until, int64_t split_max)
{
    CodokeyContext c;
    c.since = since;
    c.until = until;
    c.split_max = split_max;
    return c;
}

/* Microseconds of a UTC civil time, computed by the C library. */
int64_t utc(int64_t year, int month, int day, int hour = 0, int minute = 0, int second = 0,
            int64_t us = 0)
{
    struct tm tm {};
    tm.tm_year = static_cast<int>(year - 1900);
    tm.tm_mon = month - 1;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = minute;
    tm.tm_sec = second;
    return static_cast<int64_t>(timegm(&tm)) * SEC + us;
}

int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

struct tm broken_down(int64_t unix_us)
{
    time_t s = static_cast<time_t>(floor_div(unix_us, SEC));
    struct tm tm {};
    gmtime_r(&s, &tm);
    return tm;
}

/* The earliest instant of the precision-p period holding t, by the C library. */
int64_t truncate_to(int64_t t, int precision, int64_t split_max)
{
    if (precision >= CODOKEY_PRECISION_SECOND) {
        int64_t unit = SEC;
        if (precision == CODOKEY_PRECISION_SPLIT)
            unit = SEC / (split_max + 1);
        return floor_div(t, unit) * unit;
    }
    struct tm tm = broken_down(t);
    int64_t year = tm.tm_year + int64_t{1900};
    int month = precision >= CODOKEY_PRECISION_MONTH ? tm.tm_mon + 1 : 1;
    int day = precision >= CODOKEY_PRECISION_DAY ? tm.tm_mday : 1;
    int hour = precision >= CODOKEY_PRECISION_HOUR ? tm.tm_hour : 0;
    int minute = precision >= CODOKEY_PRECISION_MINUTE ? tm.tm_min : 0;
    return utc(year, month, day, hour, minute);
}

CodokeyStatus encode(const CodokeyContext &ctx, int64_t t, int precision, std::string *key)
{
    char buf[CODOKEY_MAX_LEN];
    size_t len = 0;
    CodokeyStatus st = codokey_encode(ctx, t, precision, buf, &len);
    if (st == CodokeyStatus::ok)
        key->assign(buf, len);
    return st;
}

std::string encode_ok(const CodokeyContext &ctx, int64_t t, int precision)
{
    std::string key;
    EXPECT_EQ(encode(ctx, t, precision, &key), CodokeyStatus::ok) << "t=" << t;
    return key;
}

CodokeyStatus decode(const CodokeyContext &ctx, const std::string &key, CodokeyFields *f)
{
    return codokey_decode(ctx, key.data(), key.size(), f);
}

CodokeyStatus decode_status(const CodokeyContext &ctx, const std::string &key)
{
    CodokeyFields f;
    return decode(ctx, key, &f);
}

CodokeyFields fields(int precision, int32_t year, int month = 1, int day = 1, int hour = 0,
                     int minute = 0, int second = 0, int64_t split = 0)
{
    CodokeyFields f{};
    f.precision = precision;
    f.year = year;
    f.month = month;
    f.day = day;
    f.hour = hour;
    f.minute = minute;
    f.second = second;
    f.split = split;
    return f;
}

/* `key` decodes, to `want`'s fields (all but unix_us). */
void expect_decodes_to(const CodokeyContext &ctx, const std::string &key, const CodokeyFields &want)
{
    SCOPED_TRACE(key);
    CodokeyFields f;
    ASSERT_EQ(decode(ctx, key, &f), CodokeyStatus::ok);
    EXPECT_EQ(f.precision, want.precision);
    EXPECT_EQ(f.year, want.year);
    EXPECT_EQ(f.month, want.month);
    EXPECT_EQ(f.day, want.day);
    EXPECT_EQ(f.hour, want.hour);
    EXPECT_EQ(f.minute, want.minute);
    EXPECT_EQ(f.second, want.second);
    EXPECT_EQ(f.split, want.split);
}

CodokeyStatus encode_fields(const CodokeyContext &ctx, const CodokeyFields &f, std::string *key)
{
    char buf[CODOKEY_MAX_LEN];
    size_t len = 0;
    CodokeyStatus st = codokey_encode_fields(ctx, f, buf, &len);
    if (st == CodokeyStatus::ok)
        key->assign(buf, len);
    return st;
}

/* First and last microsecond of a context's year span. */
int64_t span_first(const CodokeyContext &ctx)
{
    return codokey_days_from_civil(ctx.since, 1, 1) * DAY;
}

int64_t span_last(const CodokeyContext &ctx)
{
    return codokey_days_from_civil(int64_t{ctx.until} + 1, 1, 1) * DAY - 1;
}

const CodokeyContext DEFAULT_CTX{};
const CodokeyContext MICRO_CTX = context(1970, 3265, 999999);

} // namespace

/* ---- the spec's examples ------------------------------------------------------------------ */

struct Example {
    const char *key;
    int64_t split_max;
    int precision;
    int64_t encoded_from; /* a time inside the key's period */
    int64_t decodes_to;   /* the period's earliest instant */
};

TEST(CodokeyExamples, EveryRowOfTheSpec)
{
    const int64_t late_2022 = utc(2022, 12, 31, 23, 59, 59, 999999);
    const Example rows[] = {
        {"yj", 9, 0, late_2022, utc(2022, 1, 1)},
        {"zz", 9, 0, 0, 0},
        {"yj0", 9, 1, late_2022, utc(2022, 12, 1)},
        {"zzb", 9, 1, 0, 0},
        {"yj00", 9, 2, late_2022, utc(2022, 12, 31)},
        {"zzbu", 9, 2, 0, 0},
        {"yj000", 9, 3, late_2022, utc(2022, 12, 31, 23)},
        {"zzbun", 9, 3, 0, 0},
        {"yj00000", 9, 4, late_2022, utc(2022, 12, 31, 23, 59)},
        {"zzbun1n", 9, 4, 0, 0},
        {"yj0000000", 9, 5, late_2022, utc(2022, 12, 31, 23, 59, 59)},
        {"zzbun1n1n", 9, 5, 0, 0},
        {"yj00000000", 9, 6, late_2022, utc(2022, 12, 31, 23, 59, 59, 900000)},
        {"zzbun1n1n9", 9, 6, 0, 0},
        {"yj00000000000", 999999, 6, late_2022, late_2022},
        {"zzbun1n1nlflr", 999999, 6, 0, 0},
    };
    EXPECT_EQ(sizeof rows / sizeof rows[0], 16u);

    for (const Example &row : rows) {
        SCOPED_TRACE(row.key);
        CodokeyContext ctx = context(1970, 3265, row.split_max);
        EXPECT_EQ(encode_ok(ctx, row.encoded_from, row.precision), row.key);
        EXPECT_EQ(encode_ok(ctx, row.decodes_to, row.precision), row.key);
        EXPECT_EQ(codokey_length(ctx, row.precision), static_cast<int>(strlen(row.key)));

        CodokeyFields f;
        ASSERT_EQ(decode(ctx, row.key, &f), CodokeyStatus::ok);
        EXPECT_EQ(f.precision, row.precision);
        EXPECT_EQ(f.unix_us, row.decodes_to);
    }
}

TEST(CodokeyExamples, DecodedFieldsOfTheFinestKeys)
{
    expect_decodes_to(MICRO_CTX, "yj00000000000", fields(6, 2022, 12, 31, 23, 59, 59, 999999));
    expect_decodes_to(DEFAULT_CTX, "zzbun1n1n9", fields(6, 1970));
}

TEST(CodokeyExamples, CoarseKeysFillFinerFieldsWithTheirEarliestValues)
{
    expect_decodes_to(DEFAULT_CTX, "yj", fields(0, 2022));
}

TEST(CodokeyExamples, EncodeFieldsMatchesEncode)
{
    std::string key;
    ASSERT_EQ(encode_fields(DEFAULT_CTX, fields(6, 2022, 12, 31, 23, 59, 59, 9), &key),
              CodokeyStatus::ok);
    EXPECT_EQ(key, "yj00000000");
    ASSERT_EQ(encode_fields(MICRO_CTX, fields(6, 1970), &key), CodokeyStatus::ok);
    EXPECT_EQ(key, "zzbun1n1nlflr");
    /* Fields finer than the precision are not looked at, even when nonsense. */
    ASSERT_EQ(encode_fields(DEFAULT_CTX, fields(0, 2022, 99, -5, 77, 1000, -1, -123), &key),
              CodokeyStatus::ok);
    EXPECT_EQ(key, "yj");
}

/* ---- lengths and contexts ----------------------------------------------------------------- */

TEST(CodokeyLength, DefaultAndOtherContexts)
{
    const int default_lengths[7] = {2, 3, 4, 5, 7, 9, 10};
    for (int p = 0; p <= 6; p++)
        EXPECT_EQ(codokey_length(DEFAULT_CTX, p), default_lengths[p]);

    /* 99 = "2r": two year digits; 999 = "rr": two split digits. */
    CodokeyContext c = context(2000, 2099, 999);
    EXPECT_EQ(codokey_length(c, 0), 2);
    EXPECT_EQ(codokey_length(c, 6), 11);
    /* 35 fits one digit, 36 needs two. */
    EXPECT_EQ(codokey_length(context(2000, 2035, 9), 0), 1);
    EXPECT_EQ(codokey_length(context(2000, 2036, 9), 0), 2);
    /* 99999 = "255r" and 9999 = "7pr". */
    EXPECT_EQ(codokey_length(context(1970, 3265, 99999), 6), 13);
    EXPECT_EQ(codokey_length(context(1970, 3265, 9999), 6), 12);
    EXPECT_EQ(codokey_length(context(1970, 3265, 99), 6), 11);
}

TEST(CodokeyLength, WidestContextFitsTheBuffer)
{
    CodokeyContext widest = context(CODOKEY_YEAR_MIN, CODOKEY_YEAR_MAX, 999999);
    EXPECT_EQ(codokey_validate_context(widest), CodokeyStatus::ok);
    EXPECT_LE(codokey_length(widest, 6), static_cast<int>(CODOKEY_MAX_LEN));
    EXPECT_EQ(codokey_length(widest, 6), 15);
}

TEST(CodokeyContextTest, SingleYearContext)
{
    CodokeyContext c = context(2024, 2024, 9);
    EXPECT_EQ(codokey_validate_context(c), CodokeyStatus::ok);
    EXPECT_EQ(encode_ok(c, utc(2024, 6, 1), 0), "0");
    EXPECT_EQ(encode_ok(c, utc(2024, 1, 1), 1), "0b");
    std::string key;
    EXPECT_EQ(encode(c, utc(2025, 1, 1), 0, &key), CodokeyStatus::year_out_of_range);
    EXPECT_EQ(decode_status(c, "1"), CodokeyStatus::year_out_of_range);
}

TEST(CodokeyContextTest, ValidSplitMaxima)
{
    for (int64_t m : {9, 99, 999, 9999, 99999, 999999})
        EXPECT_EQ(codokey_validate_context(context(1970, 3265, m)), CodokeyStatus::ok) << m;
}

/* ---- round trips ------------------------------------------------------------------------- */

static void round_trip(const CodokeyContext &ctx, uint64_t seed, int count)
{
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int64_t> pick(span_first(ctx), span_last(ctx));
    for (int i = 0; i < count; i++) {
        int64_t t = pick(rng);
        struct tm tm = broken_down(t);
        for (int p = 0; p <= 6; p++) {
            SCOPED_TRACE(testing::Message() << "t=" << t << " p=" << p);
            std::string key;
            ASSERT_EQ(encode(ctx, t, p, &key), CodokeyStatus::ok);
            ASSERT_EQ(static_cast<int>(key.size()), codokey_length(ctx, p));
            CodokeyFields f;
            ASSERT_EQ(decode(ctx, key, &f), CodokeyStatus::ok);
            EXPECT_EQ(f.precision, p);
            EXPECT_EQ(f.unix_us, truncate_to(t, p, ctx.split_max));
            EXPECT_EQ(f.year, tm.tm_year + int64_t{1900});
            if (p >= CODOKEY_PRECISION_DAY) {
                EXPECT_EQ(f.month, tm.tm_mon + 1);
                EXPECT_EQ(f.day, tm.tm_mday);
            }
            if (p == CODOKEY_PRECISION_SPLIT) {
                EXPECT_EQ(f.second, tm.tm_sec);
                int64_t frac = t - floor_div(t, SEC) * SEC;
                EXPECT_EQ(f.split, frac * (ctx.split_max + 1) / SEC);
            }
            /* Re-encoding the decoded fields gives the key back. */
            std::string again;
            ASSERT_EQ(encode_fields(ctx, f, &again), CodokeyStatus::ok);
            EXPECT_EQ(again, key);
            EXPECT_EQ(encode_ok(ctx, f.unix_us, p), key);
        }
    }
}

TEST(CodokeyRoundTrip, DefaultContext)
{
    round_trip(DEFAULT_CTX, 0x636f646f6b6579ull, 3000);
}

TEST(CodokeyRoundTrip, MicrosecondContext)
{
    round_trip(MICRO_CTX, 12345, 2000);
}

TEST(CodokeyRoundTrip, TwentyFirstCenturyMilliseconds)
{
    round_trip(context(2000, 2099, 999), 777, 3000);
}

TEST(CodokeyRoundTrip, EveryOtherSplitMax)
{
    round_trip(context(1900, 2200, 99), 1, 500);
    round_trip(context(1900, 2200, 9999), 2, 500);
    round_trip(context(1900, 2200, 99999), 3, 500);
}

TEST(CodokeyRoundTrip, YearsBeforeTheCommonEra)
{
    /* Astronomical years: 0 is 1 BC, and it is a leap year. */
    round_trip(context(-5000, 100, 999999), 4, 2000);
    EXPECT_TRUE(codokey_is_leap_year(0));
    EXPECT_TRUE(codokey_is_leap_year(-4));
    EXPECT_FALSE(codokey_is_leap_year(-100));
    EXPECT_TRUE(codokey_is_leap_year(-400));
}

TEST(CodokeyRoundTrip, WholeSupportedSpan)
{
    CodokeyContext widest = context(CODOKEY_YEAR_MIN, CODOKEY_YEAR_MAX, 999999);
    round_trip(widest, 5, 2000);

    /* The span's edges are the edges of int64_t microseconds. */
    EXPECT_EQ(encode_ok(widest, span_last(widest), 6), "000000000000000");
    CodokeyFields f;
    ASSERT_EQ(decode(widest, "000000000000000", &f), CodokeyStatus::ok);
    EXPECT_EQ(f.unix_us, span_last(widest));
    EXPECT_EQ(f.year, CODOKEY_YEAR_MAX);

    std::string first = encode_ok(widest, span_first(widest), 6);
    ASSERT_EQ(decode(widest, first, &f), CodokeyStatus::ok);
    EXPECT_EQ(f.unix_us, span_first(widest));
    EXPECT_EQ(f.year, CODOKEY_YEAR_MIN);

    std::string key;
    EXPECT_EQ(encode(widest, INT64_MAX, 6, &key), CodokeyStatus::year_out_of_range);
    EXPECT_EQ(encode(widest, INT64_MIN, 6, &key), CodokeyStatus::year_out_of_range);
    EXPECT_GT(span_last(widest), INT64_MAX - 366 * DAY);
    EXPECT_LT(span_first(widest), INT64_MIN + 366 * DAY);
}

// Found by test/fuzz/codokey_fuzz: the day split of a time in the last
// partial day before INT64_MIN computed days * US_PER_DAY below INT64_MIN
// (signed overflow, reported by clang's -fsanitize=undefined; "make
// unit-sanitize").  Every such time lies before the widest span.
TEST(CodokeyRoundTrip, TimesAtTheEndsOfInt64)
{
    CodokeyContext widest = context(CODOKEY_YEAR_MIN, CODOKEY_YEAR_MAX, 999999);
    std::string key;
    for (int64_t d : {int64_t{0}, int64_t{1}, SEC, DAY / 2, DAY - 1, DAY, 2 * DAY}) {
        for (int p = 0; p <= 6; p++) {
            EXPECT_EQ(encode(widest, INT64_MIN + d, p, &key), CodokeyStatus::year_out_of_range)
                << d << " " << p;
            EXPECT_EQ(encode(widest, INT64_MAX - d, p, &key), CodokeyStatus::year_out_of_range)
                << d << " " << p;
        }
    }
}

TEST(CodokeyRoundTrip, EveryDayAroundTheEpochAndTheCenturies)
{
    /* Dense rather than random: every day of 1968..1972, 1999..2001 and 2099..2101. */
    CodokeyContext ctx = context(1900, 3265, 9);
    for (int32_t start : {1968, 1999, 2099}) {
        int64_t from = utc(start, 1, 1);
        int64_t to = utc(start + 3, 1, 1);
        for (int64_t t = from; t < to; t += DAY) {
            /* The day's last microsecond must still land on the day. */
            std::string key = encode_ok(ctx, t + DAY - 1, 2);
            CodokeyFields f;
            ASSERT_EQ(decode(ctx, key, &f), CodokeyStatus::ok) << key;
            EXPECT_EQ(f.unix_us, t) << key;
        }
    }
}

/* ---- ordering ---------------------------------------------------------------------------- */

TEST(CodokeyOrder, NewerTimesGiveSmallerKeys)
{
    for (const CodokeyContext &ctx : {DEFAULT_CTX, MICRO_CTX, context(2000, 2099, 999)}) {
        std::mt19937_64 rng(99);
        std::uniform_int_distribution<int64_t> pick(span_first(ctx), span_last(ctx));
        std::uniform_int_distribution<int64_t> near(1, 40 * DAY);
        for (int i = 0; i < 4000; i++) {
            int64_t a = pick(rng);
            /* Half the pairs are close together so that low fields decide too. */
            int64_t b = i % 2 ? pick(rng) : std::min(a + near(rng), span_last(ctx));
            int64_t t1 = std::min(a, b), t2 = std::max(a, b);
            for (int p = 0; p <= 6; p++) {
                std::string k1 = encode_ok(ctx, t1, p), k2 = encode_ok(ctx, t2, p);
                bool same_period = truncate_to(t1, p, ctx.split_max) ==
                                   truncate_to(t2, p, ctx.split_max);
                if (same_period)
                    EXPECT_EQ(k1, k2) << t1 << " " << t2 << " p=" << p;
                else
                    EXPECT_GT(k1.compare(k2), 0) << t1 << " " << t2 << " p=" << p;
            }
        }
    }
}

TEST(CodokeyOrder, ShorterKeyIsPrefixOfLonger)
{
    std::mt19937_64 rng(2024);
    std::uniform_int_distribution<int64_t> pick(span_first(MICRO_CTX), span_last(MICRO_CTX));
    for (int i = 0; i < 2000; i++) {
        int64_t t = pick(rng);
        std::string finest = encode_ok(MICRO_CTX, t, 6);
        for (int p = 0; p < 6; p++) {
            std::string coarse = encode_ok(MICRO_CTX, t, p);
            EXPECT_EQ(finest.compare(0, coarse.size(), coarse), 0) << coarse << " " << finest;
        }
    }
}

TEST(CodokeyOrder, AdjacentInstantsAcrossBoundaries)
{
    /* The last microsecond of a period sorts after (is older than) the next period. */
    const int64_t boundaries[] = {
        utc(2000, 1, 1),
        utc(2000, 3, 1),
        utc(2100, 3, 1),
        utc(2023, 3, 1),
        0,
        utc(2024, 5, 1),
        utc(2024, 12, 31, 23),
        utc(2024, 12, 31, 23, 59, 59),
    };
    CodokeyContext c = context(1900, 3265, 999999);
    for (int64_t b : boundaries) {
        std::string older = encode_ok(c, b - 1, 6);
        std::string newer = encode_ok(c, b, 6);
        EXPECT_GT(older, newer) << b;
    }
}

/* ---- errors ------------------------------------------------------------------------------ */

TEST(CodokeyErrors, YearOutsideContext)
{
    std::string key = "untouched";
    EXPECT_EQ(encode(DEFAULT_CTX, -1, 2, &key), CodokeyStatus::year_out_of_range);
    EXPECT_EQ(encode(DEFAULT_CTX, utc(3266, 1, 1), 2, &key), CodokeyStatus::year_out_of_range);
    EXPECT_EQ(key, "untouched");
    EXPECT_EQ(encode_ok(DEFAULT_CTX, utc(3266, 1, 1) - 1, 6), "0000000000");

    CodokeyContext c = context(2000, 2099, 999);
    EXPECT_EQ(encode(c, utc(1999, 12, 31, 23, 59, 59, 999999), 0, &key),
              CodokeyStatus::year_out_of_range);
    EXPECT_EQ(encode(c, utc(2100, 1, 1), 0, &key), CodokeyStatus::year_out_of_range);
    EXPECT_EQ(encode_ok(c, utc(2000, 1, 1), 0), "2r");
    EXPECT_EQ(encode_ok(c, utc(2099, 1, 1), 0), "00");
    /* "2s" = 100 would be 1999. */
    EXPECT_EQ(decode_status(c, "2s"), CodokeyStatus::year_out_of_range);
    EXPECT_EQ(decode_status(c, "zz"), CodokeyStatus::year_out_of_range);
    EXPECT_EQ(decode_status(c, "2r"), CodokeyStatus::ok);

    EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(0, 1969), &key), CodokeyStatus::year_out_of_range);
    EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(0, 3266), &key), CodokeyStatus::year_out_of_range);
}

TEST(CodokeyErrors, BadYearRange)
{
    const CodokeyContext bad[] = {
        context(2000, 1999, 9),
        context(3265, 1970, 9),
        context(CODOKEY_YEAR_MIN - 1, 2000, 9),
        context(1970, CODOKEY_YEAR_MAX + 1, 9),
        context(INT32_MIN, INT32_MAX, 9),
    };
    for (const CodokeyContext &c : bad) {
        EXPECT_EQ(codokey_validate_context(c), CodokeyStatus::bad_year_range);
        EXPECT_EQ(codokey_length(c, 2), -1);
        std::string key;
        EXPECT_EQ(encode(c, 0, 2, &key), CodokeyStatus::bad_year_range);
        EXPECT_EQ(decode_status(c, "zz"), CodokeyStatus::bad_year_range);
        EXPECT_EQ(encode_fields(c, fields(0, 2000), &key), CodokeyStatus::bad_year_range);
    }
}

TEST(CodokeyErrors, BadSplitMax)
{
    for (int64_t m : {int64_t{0}, int64_t{-1}, int64_t{1}, int64_t{10}, int64_t{98}, int64_t{100},
                      int64_t{1000}, int64_t{1000000}, int64_t{9999999}, int64_t{999999999},
                      INT64_MAX, INT64_MIN}) {
        CodokeyContext c = context(1970, 3265, m);
        EXPECT_EQ(codokey_validate_context(c), CodokeyStatus::bad_split_max) << m;
        EXPECT_EQ(codokey_length(c, 0), -1) << m;
        std::string key;
        EXPECT_EQ(encode(c, 0, 0, &key), CodokeyStatus::bad_split_max) << m;
        EXPECT_EQ(decode_status(c, "zz"), CodokeyStatus::bad_split_max) << m;
    }
}

TEST(CodokeyErrors, BadPrecision)
{
    for (int p : {-1, 7, 100, INT32_MIN}) {
        std::string key;
        EXPECT_EQ(encode(DEFAULT_CTX, 0, p, &key), CodokeyStatus::bad_precision) << p;
        EXPECT_EQ(codokey_length(DEFAULT_CTX, p), -1) << p;
        EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(p, 2000), &key), CodokeyStatus::bad_precision);
    }
}

TEST(CodokeyErrors, BadCharacters)
{
    for (const char *key : {"YJ", "yJ0", "Yj00", "yj-0", "yj 0", " yj", "yj0\n", "zz_", "zz.",
                            "zz{", "zz`", "zz/", "zz:", "z\xc3\xa9"}) {
        EXPECT_EQ(decode_status(DEFAULT_CTX, key), CodokeyStatus::bad_character) << key;
    }
    /* An embedded NUL is just another character outside the alphabet. */
    EXPECT_EQ(codokey_decode(DEFAULT_CTX, "y\0j", 3, nullptr), CodokeyStatus::bad_character);
    /* Characters are judged before the length, so an ISO date is called out as such. */
    EXPECT_EQ(decode_status(DEFAULT_CTX, "2022-12-31"), CodokeyStatus::bad_character);
    EXPECT_EQ(decode_status(DEFAULT_CTX, "A"), CodokeyStatus::bad_character);

    for (int c = 0; c < 256; c++) {
        bool expected = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z');
        EXPECT_EQ(codokey_valid_char(static_cast<char>(c)), expected) << c;
    }
}

TEST(CodokeyErrors, LengthsThatFitNoPrecision)
{
    std::set<size_t> valid;
    for (int p = 0; p <= 6; p++)
        valid.insert(static_cast<size_t>(codokey_length(DEFAULT_CTX, p)));
    EXPECT_EQ(valid, (std::set<size_t>{2, 3, 4, 5, 7, 9, 10}));
    const std::string zeros(40, '0');
    for (size_t len = 0; len <= zeros.size(); len++) {
        CodokeyStatus st = decode_status(DEFAULT_CTX, zeros.substr(0, len));
        if (valid.count(len))
            EXPECT_NE(st, CodokeyStatus::bad_length) << len;
        else
            EXPECT_EQ(st, CodokeyStatus::bad_length) << len;
    }
    /* 11 and 13 characters are only keys when the split is wider. */
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yj00000000000"), CodokeyStatus::bad_length);
    EXPECT_EQ(decode_status(MICRO_CTX, "yj00000000"), CodokeyStatus::bad_length);
    EXPECT_EQ(codokey_decode(DEFAULT_CTX, "", 0, nullptr), CodokeyStatus::bad_length);
}

TEST(CodokeyErrors, MonthOutOfRange)
{
    /* Month digit 11 ("b") is January; 12 ("c") would be month 0, beyond is worse. */
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yjb"), CodokeyStatus::ok);
    for (const char *key : {"yjc", "yjz", "yjc0", "yjz0000000"})
        EXPECT_EQ(decode_status(DEFAULT_CTX, key), CodokeyStatus::field_out_of_range) << key;

    std::string key;
    for (int m : {0, 13, -1, INT32_MIN, INT32_MAX}) {
        EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(1, 2022, m), &key),
                  CodokeyStatus::field_out_of_range)
            << m;
        EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(2, 2022, m, 1), &key),
                  CodokeyStatus::field_out_of_range)
            << m;
    }
}

TEST(CodokeyErrors, DayBeyondTheMonth)
{
    std::string key;
    /* 31 February cannot be built from fields in any year. */
    EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(2, 2023, 2, 31), &key),
              CodokeyStatus::field_out_of_range);
    EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(2, 2024, 2, 31), &key),
              CodokeyStatus::field_out_of_range);
    EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(2, 2024, 4, 31), &key),
              CodokeyStatus::field_out_of_range);
    EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(2, 2024, 1, 0), &key),
              CodokeyStatus::field_out_of_range);
    EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(2, 2024, 1, 32), &key),
              CodokeyStatus::field_out_of_range);

    /*
     * In a key the day counts down from the month's length, so a digit of
     * at least that length names day 0 or earlier.  "u" (30) is the 1st of
     * a 31-day month; in February 2022 ("yja") it is no day at all.
     */
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yj0u"), CodokeyStatus::ok); /* 2022-12-01 */
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yj0v"), CodokeyStatus::field_out_of_range);
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yjau"), CodokeyStatus::field_out_of_range);
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yjav"), CodokeyStatus::field_out_of_range);
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yjaz"), CodokeyStatus::field_out_of_range);
    /* April (month digit 8) has 30 days: "t" (29) is the 1st, "u" is day 0. */
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yj8t"), CodokeyStatus::ok);
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yj8u"), CodokeyStatus::field_out_of_range);
}

TEST(CodokeyErrors, HourMinuteSecondSplitOutOfRange)
{
    /* Hour digit 24 ("o") would be hour -1, i.e. an hour 24 in the other direction. */
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yj00n"), CodokeyStatus::ok);
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yj00o"), CodokeyStatus::field_out_of_range);
    /* 59 = "1n" is the largest minute or second countdown. */
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yj0001n"), CodokeyStatus::ok);
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yj0001o"), CodokeyStatus::field_out_of_range);
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yj000zz"), CodokeyStatus::field_out_of_range);
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yj000001n"), CodokeyStatus::ok);
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yj000001o"), CodokeyStatus::field_out_of_range);
    /* Split: 9 is the default's maximum, 999999 = "lflr" the microsecond one. */
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yj000000009"), CodokeyStatus::bad_length);
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yj00000009"), CodokeyStatus::ok);
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yj0000000a"), CodokeyStatus::field_out_of_range);
    EXPECT_EQ(decode_status(MICRO_CTX, "yj0000000lflr"), CodokeyStatus::ok);
    EXPECT_EQ(decode_status(MICRO_CTX, "yj0000000lfls"), CodokeyStatus::field_out_of_range);
    EXPECT_EQ(decode_status(MICRO_CTX, "yj0000000zzzz"), CodokeyStatus::field_out_of_range);

    std::string key;
    EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(3, 2022, 1, 1, 24), &key),
              CodokeyStatus::field_out_of_range);
    EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(3, 2022, 1, 1, -1), &key),
              CodokeyStatus::field_out_of_range);
    EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(4, 2022, 1, 1, 0, 60), &key),
              CodokeyStatus::field_out_of_range);
    EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(5, 2022, 1, 1, 0, 0, 60), &key),
              CodokeyStatus::field_out_of_range);
    EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(6, 2022, 1, 1, 0, 0, 0, 10), &key),
              CodokeyStatus::field_out_of_range);
    EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(6, 2022, 1, 1, 0, 0, 0, -1), &key),
              CodokeyStatus::field_out_of_range);
    EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(6, 2022, 1, 1, 0, 0, 0, INT64_MIN), &key),
              CodokeyStatus::field_out_of_range);
    EXPECT_EQ(encode_fields(MICRO_CTX, fields(6, 2022, 1, 1, 0, 0, 0, 1000000), &key),
              CodokeyStatus::field_out_of_range);
}

TEST(CodokeyErrors, EncodeLeavesOutputAloneOnError)
{
    char buf[CODOKEY_MAX_LEN];
    memset(buf, '#', sizeof buf);
    size_t len = 12345;
    EXPECT_EQ(codokey_encode(DEFAULT_CTX, -1, 6, buf, &len), CodokeyStatus::year_out_of_range);
    EXPECT_EQ(codokey_encode(DEFAULT_CTX, 0, 7, buf, &len), CodokeyStatus::bad_precision);
    EXPECT_EQ(codokey_encode_fields(DEFAULT_CTX, fields(2, 2023, 2, 29), buf, &len),
              CodokeyStatus::field_out_of_range);
    EXPECT_EQ(len, 12345u);
    for (char c : buf)
        EXPECT_EQ(c, '#');
}

TEST(CodokeyErrors, MessagesAreDistinctAndNonEmpty)
{
    const CodokeyStatus all[] = {
        CodokeyStatus::ok,
        CodokeyStatus::bad_year_range,
        CodokeyStatus::bad_split_max,
        CodokeyStatus::bad_precision,
        CodokeyStatus::year_out_of_range,
        CodokeyStatus::bad_character,
        CodokeyStatus::bad_length,
        CodokeyStatus::field_out_of_range,
    };
    std::set<std::string> seen;
    for (CodokeyStatus s : all) {
        const char *m = codokey_status_message(s);
        ASSERT_NE(m, nullptr);
        EXPECT_GT(strlen(m), 1u);
        seen.insert(m);
    }
    EXPECT_EQ(seen.size(), sizeof all / sizeof all[0]);
    /* The message states the supported span; keep it in step with the constants. */
    std::string span = std::to_string(CODOKEY_YEAR_MIN) + ".." + std::to_string(CODOKEY_YEAR_MAX);
    EXPECT_NE(std::string(codokey_status_message(CodokeyStatus::bad_year_range)).find(span),
              std::string::npos);
}

/* ---- leap years -------------------------------------------------------------------------- */

TEST(CodokeyLeap, TwentyNineFebruary)
{
    std::string key;
    /* 2024 is leap ("yh" = 1241 = 1295 - 54), 2023 is not ("yi"). */
    ASSERT_EQ(encode_fields(DEFAULT_CTX, fields(2, 2024, 2, 29), &key), CodokeyStatus::ok);
    EXPECT_EQ(key, "yha0");
    EXPECT_EQ(encode_ok(DEFAULT_CTX, utc(2024, 2, 29, 12), 2), "yha0");
    CodokeyFields f;
    ASSERT_EQ(decode(DEFAULT_CTX, "yha0", &f), CodokeyStatus::ok);
    EXPECT_EQ(f.day, 29);
    EXPECT_EQ(f.unix_us, utc(2024, 2, 29));
    /* In a leap February "s" (28) is the 1st; in a common one it is day 0. */
    ASSERT_EQ(decode(DEFAULT_CTX, "yhas", &f), CodokeyStatus::ok);
    EXPECT_EQ(f.day, 1);
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yhat"), CodokeyStatus::field_out_of_range);

    EXPECT_EQ(encode_fields(DEFAULT_CTX, fields(2, 2023, 2, 29), &key),
              CodokeyStatus::field_out_of_range);
    EXPECT_EQ(encode_ok(DEFAULT_CTX, utc(2023, 2, 28), 2), "yia0");
    ASSERT_EQ(decode(DEFAULT_CTX, "yia0", &f), CodokeyStatus::ok);
    EXPECT_EQ(f.day, 28);
    ASSERT_EQ(decode(DEFAULT_CTX, "yiar", &f), CodokeyStatus::ok);
    EXPECT_EQ(f.day, 1);
    EXPECT_EQ(decode_status(DEFAULT_CTX, "yias"), CodokeyStatus::field_out_of_range);
}

TEST(CodokeyLeap, CenturyRule)
{
    EXPECT_TRUE(codokey_is_leap_year(2000));
    EXPECT_FALSE(codokey_is_leap_year(2100));
    EXPECT_FALSE(codokey_is_leap_year(1900));
    EXPECT_TRUE(codokey_is_leap_year(2400));
    EXPECT_TRUE(codokey_is_leap_year(2024));
    EXPECT_FALSE(codokey_is_leap_year(2023));
    EXPECT_EQ(codokey_days_in_month(2000, 2), 29);
    EXPECT_EQ(codokey_days_in_month(2100, 2), 28);
    EXPECT_EQ(codokey_days_in_month(2100, 12), 31);
    EXPECT_EQ(codokey_days_in_month(2100, 13), 0);

    CodokeyContext c = context(1900, 2199, 9);
    std::string key;
    EXPECT_EQ(encode_fields(c, fields(2, 2000, 2, 29), &key), CodokeyStatus::ok);
    EXPECT_EQ(encode_fields(c, fields(2, 2100, 2, 29), &key), CodokeyStatus::field_out_of_range);
    EXPECT_EQ(encode_fields(c, fields(2, 1900, 2, 29), &key), CodokeyStatus::field_out_of_range);

    /* The day after 28 February is 29 February in 2000 and 1 March in 2100. */
    CodokeyFields f;
    ASSERT_EQ(decode(c, encode_ok(c, utc(2000, 2, 28) + DAY, 2), &f), CodokeyStatus::ok);
    EXPECT_EQ(f.month, 2);
    EXPECT_EQ(f.day, 29);
    ASSERT_EQ(decode(c, encode_ok(c, utc(2100, 2, 28) + DAY, 2), &f), CodokeyStatus::ok);
    EXPECT_EQ(f.month, 3);
    EXPECT_EQ(f.day, 1);

    /* Same key text, different verdicts: day digit "s" of February. */
    std::string feb2000 = encode_ok(c, utc(2000, 2, 1), 1) + "s";
    std::string feb2100 = encode_ok(c, utc(2100, 2, 1), 1) + "s";
    EXPECT_EQ(decode_status(c, feb2000), CodokeyStatus::ok);
    EXPECT_EQ(decode_status(c, feb2100), CodokeyStatus::field_out_of_range);
}

/* ---- the civil calendar against the C library ------------------------------------------- */

TEST(CodokeyCivil, MatchesGmtime)
{
    std::mt19937_64 rng(7);
    /* Day numbers reachable by int64_t microseconds. */
    std::uniform_int_distribution<int64_t> pick(INT64_MIN / DAY, INT64_MAX / DAY);
    for (int i = 0; i < 20000; i++) {
        int64_t days = i < 2000 ? i - 1000 : pick(rng);
        int64_t year;
        int month, day;
        codokey_civil_from_days(days, &year, &month, &day);
        time_t s = static_cast<time_t>(days * 86400);
        struct tm tm {};
        ASSERT_NE(gmtime_r(&s, &tm), nullptr);
        ASSERT_EQ(year, tm.tm_year + int64_t{1900}) << days;
        ASSERT_EQ(month, tm.tm_mon + 1) << days;
        ASSERT_EQ(day, tm.tm_mday) << days;
        ASSERT_EQ(codokey_days_from_civil(year, month, day), days);
    }
    EXPECT_EQ(codokey_days_from_civil(1970, 1, 1), 0);
    EXPECT_EQ(codokey_days_from_civil(1969, 12, 31), -1);
    EXPECT_EQ(codokey_days_from_civil(2000, 3, 1), 11017);
}
