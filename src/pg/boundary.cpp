/*
 * boundary.cpp - the C++/PostgreSQL error boundary and shared helpers.
 */
#include "kid_pg.h"

#include <climits>
#include <ctime>

extern "C" {
#include "funcapi.h"
#include "access/htup_details.h"
#include "mb/pg_wchar.h"
}

namespace kid::pg {

void report_cpp_exception(bool out_of_memory, const char *message)
{
    if (out_of_memory)
        ereport(ERROR, (errcode(ERRCODE_OUT_OF_MEMORY), errmsg("out of memory")));
    /* call_guarded cut the message to its buffer: drop a character the cut split. */
    int len = static_cast<int>(strlen(message));
    int shown = pg_mbcliplen(message, len, len);
    ereport(ERROR,
            (errcode(ERRCODE_INTERNAL_ERROR), errmsg("kid: C++ exception: %.*s", shown, message)));
    pg_unreachable();
}

void report_invalid_text(const char *type_name, const char *text, size_t len, const char *detail)
{
    save_invalid_text(nullptr, type_name, text, len, detail);
    pg_unreachable();
}

void save_invalid_text(Node *escontext, const char *type_name, const char *text, size_t len,
                       const char *detail)
{
    /*
     * Show at most SHOWN_INPUT_MAX bytes of hostile input, cut on a character
     * boundary of the database encoding: half a character would make the
     * message invalid in that encoding, and its conversion to the client's
     * encoding would then fail with 22021 instead of reporting 22P02.  The
     * text is valid in the database encoding (it came through a literal, a
     * text value or a cstring), so pg_mbcliplen's walk stays inside it.
     * %.*s stops at a NUL anyway.
     */
    int shown = static_cast<int>(len);
    if (len > static_cast<size_t>(SHOWN_INPUT_MAX))
        shown = pg_mbcliplen(text, static_cast<int>(len > INT_MAX ? INT_MAX : len),
                             SHOWN_INPUT_MAX);
    const char *more = static_cast<size_t>(shown) < len ? "..." : "";
#if PG_VERSION_NUM >= 160000
    /* An ERROR unless escontext is an ErrorSaveContext (pg_input_is_valid and the like). */
    if (detail)
        errsave(escontext, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                            errmsg("invalid input syntax for type %s: \"%.*s%s\"", type_name, shown,
                                   text, more),
                            errdetail("%s", detail)));
    else
        errsave(escontext, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                            errmsg("invalid input syntax for type %s: \"%.*s%s\"", type_name, shown,
                                   text, more)));
#else
    (void)escontext;
    if (detail)
        ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
                        errmsg("invalid input syntax for type %s: \"%.*s%s\"", type_name, shown,
                               text, more),
                        errdetail("%s", detail)));
    ereport(ERROR,
            (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
             errmsg("invalid input syntax for type %s: \"%.*s%s\"", type_name, shown, text, more)));
#endif
}

void report_invalid_binary(const char *type_name, const char *detail)
{
    ereport(ERROR,
            (errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
             errmsg("invalid binary value for type %s", type_name), errdetail("%s", detail)));
    pg_unreachable();
}

void report_out_of_range(const char *type_name, const char *what, int64_t value, int64_t min,
                         int64_t max)
{
    ereport(ERROR,
            (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
             errmsg("%s %s %lld is out of range", type_name, what, static_cast<long long>(value)),
             errdetail("The %s must be between %lld and %lld.", what, static_cast<long long>(min),
                       static_cast<long long>(max))));
    pg_unreachable();
}

void report_time_out_of_range(const char *type_name, TimestampTz t)
{
    if (TIMESTAMP_NOT_FINITE(t))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("timestamp %s is out of range for type %s",
                               TIMESTAMP_IS_NOBEGIN(t) ? "-infinity" : "infinity", type_name)));
    ereport(ERROR,
            (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
             errmsg("timestamp %s is out of range for type %s", timestamptz_to_str(t), type_name)));
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
     * The last ~30 years of timestamptz (294247 to 294276) do not fit an
     * int64 count of microseconds since 1970; no id type reaches them.
     */
    if (TIMESTAMP_NOT_FINITE(t) || t > INT64_MAX - POSTGRES_EPOCH_UNIX_US)
        report_time_out_of_range(type_name, t);
    return unix_us_from_timestamptz(t);
}

Datum info_record(FunctionCallInfo fcinfo, const char *function, const Datum *values, int count)
{
    TupleDesc desc;
    if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
        ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                        errmsg("%s must be called in a context that accepts a record",
                               function ? function : "this function")));
    desc = BlessTupleDesc(desc);
    constexpr int MAX_COLUMNS = 16;
    bool nulls[MAX_COLUMNS] = {};
    if (count > MAX_COLUMNS || count != desc->natts)
        elog(ERROR, "kid: %s returns %d columns, the record has %d",
             function ? function : "an info function", count, desc->natts);
    return HeapTupleGetDatum(heap_form_tuple(desc, const_cast<Datum *>(values), nulls));
}

} // namespace kid::pg
