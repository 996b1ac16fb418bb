/*
 * boundary.cpp - the C++/PostgreSQL error boundary and shared helpers.
 */
#include "kid_pg.h"

#include <ctime>

namespace kid::pg {

void report_cpp_exception(bool out_of_memory, const char *message)
{
    if (out_of_memory)
        ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("kid: C++ exception: %s", message)));
    pg_unreachable();
}

void report_invalid_text(const char *type_name, const char *text, size_t len, const char *detail)
{
    /* Show at most a bounded prefix of hostile input; %.*s stops at a NUL anyway. */
    int shown = len > 200 ? 200 : static_cast<int>(len);
    if (detail)
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid input syntax for type %s: \"%.*s%s\"", type_name, shown,
                               text, len > 200 ? "..." : ""),
                        errdetail("%s", detail)));
    ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                    errmsg("invalid input syntax for type %s: \"%.*s%s\"", type_name, shown, text,
                           len > 200 ? "..." : "")));
    pg_unreachable();
}

void report_invalid_binary(const char *type_name, const char *detail)
{
    ereport(ERROR, (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
                    errmsg("invalid binary value for type %s", type_name),
                    errdetail("%s", detail)));
    pg_unreachable();
}

void report_out_of_range(const char *type_name, const char *what, int64_t value, int64_t min,
                         int64_t max)
{
    ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                    errmsg("%s %s %lld is out of range", type_name, what,
                           static_cast<long long>(value)),
                    errdetail("The %s must be between %lld and %lld.", what,
                              static_cast<long long>(min), static_cast<long long>(max))));
    pg_unreachable();
}

void report_time_out_of_range(const char *type_name, TimestampTz t)
{
    if (TIMESTAMP_NOT_FINITE(t))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("timestamp %s is out of range for type %s",
                               TIMESTAMP_IS_NOBEGIN(t) ? "-infinity" : "infinity", type_name)));
    ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                    errmsg("timestamp %s is out of range for type %s", timestamptz_to_str(t),
                           type_name)));
    pg_unreachable();
}

int64_t now_unix_us()
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

int64_t now_unix_ms()
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

int64_t finite_unix_us(const char *type_name, TimestampTz t)
{
    /*
     * The last ~11,000 years of timestamptz (from 294247) do not fit an
     * int64 count of microseconds since 1970; no id type reaches them.
     */
    if (TIMESTAMP_NOT_FINITE(t) || t > INT64_MAX - POSTGRES_EPOCH_UNIX_US)
        report_time_out_of_range(type_name, t);
    return unix_us_from_timestamptz(t);
}

} // namespace kid::pg
