/*
 * codokey.h - reverse-chronological date keys in radix 36.
 *
 * A codokey writes a UTC calendar time as a countdown: every field is
 * stored as (max - value) in lowercase base 36, left-padded with '0' to the
 * base-36 width of max, most significant field first.  Newer times therefore
 * give smaller keys, so an ascending sort lists the newest first, and the
 * key of a time at a coarser precision is a prefix of its key at a finer one.
 *
 * The context (since, until, split_max) is shared by every key of a
 * collection and decoding is impossible without it: the year width and the
 * split width depend on it.
 *
 * Times are int64_t microseconds since 1970-01-01T00:00:00Z on the proleptic
 * Gregorian calendar; years use astronomical numbering (year 0 is 1 BC).
 * Nothing here allocates, throws or uses floating point.
 */
#ifndef KID_CORE_CODOKEY_H
#define KID_CORE_CODOKEY_H

#include <cstddef>
#include <cstdint>

namespace kid {

enum class CodokeyStatus {
    ok,
    bad_year_range,     /* context: since > until, or a year outside the supported span */
    bad_split_max,      /* context: split_max is not 10^k - 1 with 1 <= k <= 6 */
    bad_precision,      /* precision outside 0..6 */
    year_out_of_range,  /* the time's year lies outside since..until */
    bad_character,      /* a key character outside 0-9a-z */
    bad_length,         /* a key length that fits no precision of the context */
    field_out_of_range, /* a field value the calendar does not have (month 13, 31 February) */
};

/* Short English text for error messages; never NULL. */
const char *codokey_status_message(CodokeyStatus status) noexcept;

/*
 * The supported years are exactly those whose every microsecond is an
 * int64_t offset from 1970, so decoding a key can never overflow.  The SQL
 * layer may narrow this further to what its timestamp type holds.
 */
inline constexpr int32_t CODOKEY_YEAR_MIN = -290307;
inline constexpr int32_t CODOKEY_YEAR_MAX = 294246;

/*
 * The split is limited to microseconds because that is the resolution of
 * the times we are given: a seventh digit would always be zero.
 */
inline constexpr int CODOKEY_SPLIT_DIGITS_MAX = 6;

inline constexpr int CODOKEY_PRECISION_YEAR = 0;
inline constexpr int CODOKEY_PRECISION_MONTH = 1;
inline constexpr int CODOKEY_PRECISION_DAY = 2;
inline constexpr int CODOKEY_PRECISION_HOUR = 3;
inline constexpr int CODOKEY_PRECISION_MINUTE = 4;
inline constexpr int CODOKEY_PRECISION_SECOND = 5;
inline constexpr int CODOKEY_PRECISION_SPLIT = 6;
inline constexpr int CODOKEY_PRECISION_DEFAULT = CODOKEY_PRECISION_DAY;

/*
 * Longest possible key: a year span below 36^4 needs 4 digits, month to
 * second need 7, and 999999 needs 4.
 */
inline constexpr size_t CODOKEY_MAX_LEN = 16;

struct CodokeyContext {
    int32_t since = 1970;  /* year written as max, i.e. the largest key */
    int32_t until = 3265;  /* year written as 0; 3265 - 1970 = 1295 = "zz" */
    int64_t split_max = 9; /* 10^k - 1: k decimal digits of the second */
};

/* ok, bad_year_range or bad_split_max.  since == until is allowed. */
CodokeyStatus codokey_validate_context(const CodokeyContext &ctx) noexcept;

/* Number of characters of a key of this precision, or -1 if ctx or precision is invalid. */
int codokey_length(const CodokeyContext &ctx, int precision) noexcept;

/*
 * A broken-down codokey.  Fields finer than `precision` hold their
 * earliest value (month 1, day 1, zeros) so that the struct always names
 * the earliest instant the key covers, which is also in unix_us.
 */
struct CodokeyFields {
    int precision; /* 0..6 */
    int32_t year;  /* astronomical */
    int month;     /* 1..12 */
    int day;       /* 1..days in month */
    int hour;      /* 0..23 */
    int minute;    /* 0..59 */
    int second;    /* 0..59 */
    int64_t split; /* 0..split_max, in units of 1 / (split_max + 1) second */
    int64_t unix_us;
};

/*
 * Key of the time unix_us truncated to `precision`, written to
 * out[0..*len) without a terminating NUL; out must hold CODOKEY_MAX_LEN.
 * On error nothing is written and *len is untouched.
 */
CodokeyStatus codokey_encode(const CodokeyContext &ctx, int64_t unix_us, int precision, char *out,
                             size_t *len) noexcept;

/*
 * Key of fields.year .. the field at fields.precision; finer fields and
 * unix_us are ignored.  Every used field is checked against the calendar,
 * so 29 February of a common year is field_out_of_range.
 */
CodokeyStatus codokey_encode_fields(const CodokeyContext &ctx, const CodokeyFields &fields,
                                    char *out, size_t *len) noexcept;

/*
 * Parse a key of exactly len characters.  The precision comes from the
 * length.  On error *out is unspecified.
 */
CodokeyStatus codokey_decode(const CodokeyContext &ctx, const char *key, size_t len,
                             CodokeyFields *out) noexcept;

/* True for the 36 characters of the alphabet: 0-9 and lowercase a-z. */
bool codokey_valid_char(char c) noexcept;

/*
 * Proleptic Gregorian calendar helpers.  Exact for |year| < 10^9 and the
 * matching day counts, far beyond what int64_t microseconds can reach.
 */
bool codokey_is_leap_year(int64_t year) noexcept;
int codokey_days_in_month(int64_t year, int month) noexcept; /* month 1..12 */
int64_t codokey_days_from_civil(int64_t year, int month, int day) noexcept;
void codokey_civil_from_days(int64_t days, int64_t *year, int *month, int *day) noexcept;

} // namespace kid

#endif
