/*
 * codokey.cpp - countdown date keys in lowercase base 36.
 */
#include "core/codokey.h"
#include "core/no_postgres.h"

namespace kid {

namespace {

constexpr int64_t US_PER_SECOND = 1000000;
constexpr int64_t US_PER_MINUTE = 60 * US_PER_SECOND;
constexpr int64_t US_PER_HOUR = 60 * US_PER_MINUTE;
constexpr int64_t US_PER_DAY = 24 * US_PER_HOUR;

constexpr char DIGITS[] = "0123456789abcdefghijklmnopqrstuvwxyz";

/*
 * Fixed widths of month .. second; year and split depend on the context
 * and are filled in by the layout.  The widths are those of the fields'
 * maxima (11, 31, 23, 59, 59) in base 36.
 */
constexpr int FIXED_WIDTH[7] = {0, 1, 1, 1, 2, 2, 0};

/* What a context implies for the text; derived once per call. */
struct Layout {
    int64_t year_max; /* until - since */
    int year_width;
    int64_t split_max;
    int split_width;
    int64_t split_unit; /* microseconds per split step */
};

int base36_width(int64_t n) noexcept
{
    int w = 1;
    while (n >= 36) {
        n /= 36;
        w++;
    }
    return w;
}

/* Decimal digits k of split_max = 10^k - 1, or 0 if it has another form. */
int split_digits(int64_t split_max) noexcept
{
    int64_t p = 10;
    for (int k = 1; k <= CODOKEY_SPLIT_DIGITS_MAX; k++, p *= 10)
        if (split_max == p - 1)
            return k;
    return 0;
}

CodokeyStatus make_layout(const CodokeyContext &ctx, Layout *layout) noexcept
{
    if (ctx.since < CODOKEY_YEAR_MIN || ctx.until > CODOKEY_YEAR_MAX || ctx.since > ctx.until)
        return CodokeyStatus::bad_year_range;
    int k = split_digits(ctx.split_max);
    if (k == 0)
        return CodokeyStatus::bad_split_max;

    layout->year_max = static_cast<int64_t>(ctx.until) - ctx.since;
    layout->year_width = base36_width(layout->year_max);
    layout->split_max = ctx.split_max;
    layout->split_width = base36_width(ctx.split_max);
    layout->split_unit = 1;
    for (int i = k; i < CODOKEY_SPLIT_DIGITS_MAX; i++)
        layout->split_unit *= 10;
    return CodokeyStatus::ok;
}

int field_width(const Layout &layout, int field) noexcept
{
    if (field == CODOKEY_PRECISION_YEAR)
        return layout.year_width;
    if (field == CODOKEY_PRECISION_SPLIT)
        return layout.split_width;
    return FIXED_WIDTH[field];
}

int key_length(const Layout &layout, int precision) noexcept
{
    int n = 0;
    for (int f = 0; f <= precision; f++)
        n += field_width(layout, f);
    return n;
}

bool valid_precision(int precision) noexcept
{
    return precision >= CODOKEY_PRECISION_YEAR && precision <= CODOKEY_PRECISION_SPLIT;
}

/* Callers guarantee 0 <= v < 36^width. */
void put_base36(char *out, int width, int64_t v) noexcept
{
    for (int i = width - 1; i >= 0; i--) {
        out[i] = DIGITS[v % 36];
        v /= 36;
    }
}

/* Callers have already checked every character against the alphabet. */
int64_t get_base36(const char *in, int width) noexcept
{
    int64_t v = 0;
    for (int i = 0; i < width; i++) {
        char c = in[i];
        v = v * 36 + (c <= '9' ? c - '0' : c - 'a' + 10);
    }
    return v;
}

/*
 * Field i as a (value, max) pair.  The day's maximum depends on the month,
 * which is why a key cannot be read field by field without the year and
 * month before it.  Widened to int64_t so that no caller-supplied int can
 * overflow on the way.
 */
void field_value(const Layout &layout, const CodokeyContext &ctx, const CodokeyFields &f, int i,
                 int64_t *value, int64_t *max) noexcept
{
    switch (i) {
    case CODOKEY_PRECISION_YEAR:
        *value = static_cast<int64_t>(f.year) - ctx.since;
        *max = layout.year_max;
        return;
    case CODOKEY_PRECISION_MONTH:
        *value = static_cast<int64_t>(f.month) - 1;
        *max = 11;
        return;
    case CODOKEY_PRECISION_DAY:
        *value = f.day;
        *max = codokey_days_in_month(f.year, f.month);
        return;
    case CODOKEY_PRECISION_HOUR:
        *value = f.hour;
        *max = 23;
        return;
    case CODOKEY_PRECISION_MINUTE:
        *value = f.minute;
        *max = 59;
        return;
    case CODOKEY_PRECISION_SECOND:
        *value = f.second;
        *max = 59;
        return;
    default:
        *value = f.split;
        *max = layout.split_max;
        return;
    }
}

CodokeyStatus check_fields(const Layout &layout, const CodokeyContext &ctx,
                           const CodokeyFields &f) noexcept
{
    if (f.year < ctx.since || f.year > ctx.until)
        return CodokeyStatus::year_out_of_range;
    /*
     * Month before day, because the day's maximum is only defined for a
     * real month; the day of month starts at 1, every other field at 0.
     */
    for (int i = CODOKEY_PRECISION_MONTH; i <= f.precision; i++) {
        int64_t value, max;
        field_value(layout, ctx, f, i, &value, &max);
        int64_t lowest = i == CODOKEY_PRECISION_DAY ? 1 : 0;
        if (value < lowest || value > max)
            return CodokeyStatus::field_out_of_range;
    }
    return CodokeyStatus::ok;
}

/* Fields up to f.precision must already be valid. */
void write_key(const Layout &layout, const CodokeyContext &ctx, const CodokeyFields &f, char *out,
               size_t *len) noexcept
{
    int pos = 0;
    for (int i = 0; i <= f.precision; i++) {
        int64_t value, max;
        field_value(layout, ctx, f, i, &value, &max);
        int w = field_width(layout, i);
        put_base36(out + pos, w, max - value);
        pos += w;
    }
    *len = static_cast<size_t>(pos);
}

} // namespace

const char *codokey_status_message(CodokeyStatus status) noexcept
{
    switch (status) {
    case CodokeyStatus::ok:
        return "ok";
    case CodokeyStatus::bad_year_range:
        return "codokey context needs since <= until, both within years -290307..294246";
    case CodokeyStatus::bad_split_max:
        return "codokey split_max must be 9, 99, 999, 9999, 99999 or 999999";
    case CodokeyStatus::bad_precision:
        return "codokey precision must be between 0 and 6";
    case CodokeyStatus::year_out_of_range:
        return "year lies outside the codokey context's since..until";
    case CodokeyStatus::bad_character:
        return "codokey contains a character outside 0-9 and a-z";
    case CodokeyStatus::bad_length:
        return "codokey length fits no precision of the context";
    case CodokeyStatus::field_out_of_range:
        return "codokey field value is out of range";
    }
    /* Only reachable through a cast of a value that names no status. */
    return "unknown codokey status";
}

CodokeyStatus codokey_validate_context(const CodokeyContext &ctx) noexcept
{
    Layout layout;
    return make_layout(ctx, &layout);
}

int codokey_length(const CodokeyContext &ctx, int precision) noexcept
{
    Layout layout;
    if (make_layout(ctx, &layout) != CodokeyStatus::ok || !valid_precision(precision))
        return -1;
    return key_length(layout, precision);
}

CodokeyStatus codokey_encode(const CodokeyContext &ctx, int64_t unix_us, int precision, char *out,
                             size_t *len) noexcept
{
    Layout layout;
    CodokeyStatus st = make_layout(ctx, &layout);
    if (st != CodokeyStatus::ok)
        return st;
    if (!valid_precision(precision))
        return CodokeyStatus::bad_precision;

    /*
     * Floor, not truncation, so times before 1970 still get a day-relative
     * rest >= 0.  From the remainder, not as unix_us - days * US_PER_DAY:
     * that product leaves int64_t in the last partial day before INT64_MIN.
     */
    int64_t days = unix_us / US_PER_DAY;
    int64_t rest = unix_us % US_PER_DAY;
    if (rest < 0) {
        rest += US_PER_DAY;
        days--;
    }

    CodokeyFields f{};
    int64_t year;
    codokey_civil_from_days(days, &year, &f.month, &f.day);
    if (year < ctx.since || year > ctx.until)
        return CodokeyStatus::year_out_of_range;
    f.precision = precision;
    f.year = static_cast<int32_t>(year);
    f.hour = static_cast<int>(rest / US_PER_HOUR);
    f.minute = static_cast<int>(rest / US_PER_MINUTE % 60);
    f.second = static_cast<int>(rest / US_PER_SECOND % 60);
    f.split = rest % US_PER_SECOND / layout.split_unit;
    write_key(layout, ctx, f, out, len);
    return CodokeyStatus::ok;
}

CodokeyStatus codokey_encode_fields(const CodokeyContext &ctx, const CodokeyFields &fields,
                                    char *out, size_t *len) noexcept
{
    Layout layout;
    CodokeyStatus st = make_layout(ctx, &layout);
    if (st != CodokeyStatus::ok)
        return st;
    if (!valid_precision(fields.precision))
        return CodokeyStatus::bad_precision;
    st = check_fields(layout, ctx, fields);
    if (st != CodokeyStatus::ok)
        return st;
    write_key(layout, ctx, fields, out, len);
    return CodokeyStatus::ok;
}

CodokeyStatus codokey_decode(const CodokeyContext &ctx, const char *key, size_t len,
                             CodokeyFields *out) noexcept
{
    Layout layout;
    CodokeyStatus st = make_layout(ctx, &layout);
    if (st != CodokeyStatus::ok)
        return st;

    /*
     * Characters before length: a caller who passes "2022-12-31" learns
     * that codokeys are not ISO dates rather than that the length is odd.
     */
    for (size_t i = 0; i < len; i++)
        if (!codokey_valid_char(key[i]))
            return CodokeyStatus::bad_character;

    int precision = -1;
    for (int p = CODOKEY_PRECISION_YEAR; p <= CODOKEY_PRECISION_SPLIT; p++)
        if (static_cast<size_t>(key_length(layout, p)) == len)
            precision = p;
    if (precision < 0)
        return CodokeyStatus::bad_length;

    /* Read every digit group as a countdown, then let one check judge the calendar. */
    int64_t digit[7] = {0, 0, 0, 0, 0, 0, 0};
    int pos = 0;
    for (int i = 0; i <= precision; i++) {
        int w = field_width(layout, i);
        digit[i] = get_base36(key + pos, w);
        pos += w;
    }

    /* A year digit group above the span would name a year before since. */
    if (digit[0] > layout.year_max)
        return CodokeyStatus::year_out_of_range;
    CodokeyFields f{};
    f.precision = precision;
    f.year = static_cast<int32_t>(ctx.since + (layout.year_max - digit[0]));
    f.month = 1;
    f.day = 1;
    if (precision >= CODOKEY_PRECISION_MONTH) {
        if (digit[1] > 11)
            return CodokeyStatus::field_out_of_range;
        f.month = static_cast<int>(12 - digit[1]);
    }
    /*
     * The remaining countdowns may underflow to values below the field's
     * floor (e.g. day 0 when the digit is at least the month's length);
     * those are exactly the keys no time encodes to, and check_fields
     * rejects them.  Digit groups are at most 4 wide, so no overflow.
     */
    if (precision >= CODOKEY_PRECISION_DAY)
        f.day = static_cast<int>(codokey_days_in_month(f.year, f.month) - digit[2]);
    if (precision >= CODOKEY_PRECISION_HOUR)
        f.hour = static_cast<int>(23 - digit[3]);
    if (precision >= CODOKEY_PRECISION_MINUTE)
        f.minute = static_cast<int>(59 - digit[4]);
    if (precision >= CODOKEY_PRECISION_SECOND)
        f.second = static_cast<int>(59 - digit[5]);
    if (precision >= CODOKEY_PRECISION_SPLIT)
        f.split = layout.split_max - digit[6];
    st = check_fields(layout, ctx, f);
    if (st != CodokeyStatus::ok)
        return st;

    /* The supported year span keeps every such instant inside int64_t. */
    f.unix_us = codokey_days_from_civil(f.year, f.month, f.day) * US_PER_DAY +
                f.hour * US_PER_HOUR + f.minute * US_PER_MINUTE + f.second * US_PER_SECOND +
                f.split * layout.split_unit;
    *out = f;
    return CodokeyStatus::ok;
}

bool codokey_valid_char(char c) noexcept
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z');
}

bool codokey_is_leap_year(int64_t year) noexcept
{
    return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

int codokey_days_in_month(int64_t year, int month) noexcept
{
    static constexpr int length[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12)
        return 0;
    if (month == 2 && codokey_is_leap_year(year))
        return 29;
    return length[month - 1];
}

/*
 * Howard Hinnant's days_from_civil: count in 400-year eras starting on
 * 1 March, so the leap day is the last day of the shifted year and the
 * month lengths follow a fixed pattern (the 153/5 term).  719468 is the
 * day number of 1970-01-01 from 0000-03-01.
 */
int64_t codokey_days_from_civil(int64_t year, int month, int day) noexcept
{
    int64_t y = month <= 2 ? year - 1 : year;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;                         /* 0..399 */
    int64_t mp = month > 2 ? month - 3 : month + 9;      /* March = 0 */
    int64_t doy = (153 * mp + 2) / 5 + day - 1;          /* 0..365 */
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy; /* 0..146096 */
    return era * 146097 + doe - 719468;
}

/* The inverse of the above, with the same March-based eras. */
void codokey_civil_from_days(int64_t days, int64_t *year, int *month, int *day) noexcept
{
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;                                      /* 0..146096 */
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* 0..399 */
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);               /* 0..365 */
    int64_t mp = (5 * doy + 2) / 153;                                    /* March = 0 */
    int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
    *day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
    *month = m;
    *year = yoe + era * 400 + (m <= 2 ? 1 : 0);
}

} // namespace kid
