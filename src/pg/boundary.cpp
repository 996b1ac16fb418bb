/*
 * boundary.cpp - the C++/PostgreSQL error boundary and shared helpers.
 */
#include "pg/kid_pg.h"

#include <cctype>
#include <climits>
#include <cstdio>
#include <ctime>

extern "C" {
#include "funcapi.h"
#include "access/htup_details.h"
#include "mb/pg_wchar.h"
#include "pgtime.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"
#if PG_VERSION_NUM >= 160000
#include "nodes/miscnodes.h"
#endif
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

void report_invalid_text(const char *type_name, const char *text, size_t len, const char *detail,
                         TimeHint hint)
{
    save_invalid_text(nullptr, type_name, text, len, detail, hint);
    pg_unreachable();
}

bool text_reads_as_time(const char *text, size_t len)
{
    /* Longer text is no time: timestamptz_in's own buffer is this size. */
    char copy[MAXDATELEN + 1];
    if (len > MAXDATELEN)
        return false;
    memcpy(copy, text, len);
    copy[len] = '\0';
    char workbuf[MAXDATELEN + MAXDATEFIELDS];
    char *field[MAXDATEFIELDS];
    int ftype[MAXDATEFIELDS];
    int nf;
    if (ParseDateTime(copy, workbuf, sizeof(workbuf), field, ftype, MAXDATEFIELDS, &nf) != 0)
        return false;
    /*
     * A date field that starts with a letter (user1, item42, Europe/Paris,
     * Nov-23-2026) makes DecodeDateTime look it up as a time zone with
     * pg_tzset, which keeps every name it accepts, POSIX specs such as USER1
     * or ABC-5 included, in TopMemoryContext for the backend's life (about
     * 25 kB each): bad ids in a loop would grow the backend without bound.
     * On 15 DecodeDateTime also raises "time zone not recognized" for one
     * that names none, where the message must stay 22P02.  So such text
     * gets no hint, on every version: the cost is no hint for a named zone
     * or a text month joined to its day.
     */
    for (int i = 0; i < nf; i++)
        if (ftype[i] == DTK_DATE && !isdigit(static_cast<unsigned char>(field[i][0])))
            return false;
    int dtype;
    struct pg_tm tm;
    fsec_t fsec;
    int tz;
#if PG_VERSION_NUM >= 160000
    DateTimeErrorExtra extra;
    if (DecodeDateTime(field, ftype, nf, &dtype, &tm, &fsec, &tz, &extra) != 0)
        return false;
#else
    if (DecodeDateTime(field, ftype, nf, &dtype, &tm, &fsec, &tz) != 0)
        return false;
#endif
    /*
     * What timestamptz_in does next: a date and time must convert to a
     * timestamp ('300000-01-01' decodes, then is "timestamp out of range");
     * epoch, infinity and -infinity are times without conversion.
     */
    if (dtype != DTK_DATE)
        return true;
    Timestamp result;
    return tm2timestamp(&tm, fsec, &tz, &result) == 0;
}

/*
 * Whether the error goes anywhere its details are read: not when escontext
 * is an ErrorSaveContext that does not want them (pg_input_is_valid), which
 * keeps only that the input failed (PostgreSQL 16+).
 */
static bool details_wanted(Node *escontext)
{
#if PG_VERSION_NUM >= 160000
    if (escontext && IsA(escontext, ErrorSaveContext))
        return reinterpret_cast<ErrorSaveContext *>(escontext)->details_wanted;
#else
    (void)escontext;
#endif
    return true;
}

/*
 * The HINT for text that reads as a time where a value of type_name was
 * expected; nullptr when there is none.  Written into buf.
 */
static const char *time_hint(Node *escontext, TimeHint hint, const char *type_name,
                             const char *text, size_t len, char *buf, size_t size)
{
    if (hint == TimeHint::none || !details_wanted(escontext) || !text_reads_as_time(text, len))
        return nullptr;
    if (hint == TimeHint::codokey)
        snprintf(buf, size,
                 "To get the codokey of a time, call codokey(): codokey('2026-11-01'::timestamptz, "
                 "2) (a parameter: codokey($1::timestamptz, 2)).");
    else
        snprintf(buf, size,
                 "To compare %s ids with a time, give the time as timestamptz: id >= "
                 "'2026-11-01'::timestamptz (a parameter: $1::timestamptz).",
                 type_name);
    return buf;
}

void save_invalid_text(Node *escontext, const char *type_name, const char *text, size_t len,
                       const char *detail, TimeHint hint)
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
    char hint_buf[256];
    const char *hint_text = time_hint(escontext, hint, type_name, text, len, hint_buf,
                                      sizeof(hint_buf));
#if PG_VERSION_NUM >= 160000
    /* An ERROR unless escontext is an ErrorSaveContext (pg_input_is_valid and the like). */
    errsave(escontext,
            (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
             errmsg("invalid input syntax for type %s: \"%.*s%s\"", type_name, shown, text, more),
             detail ? errdetail("%s", detail) : 0, hint_text ? errhint("%s", hint_text) : 0));
#else
    (void)escontext;
    ereport(ERROR,
            (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
             errmsg("invalid input syntax for type %s: \"%.*s%s\"", type_name, shown, text, more),
             detail ? errdetail("%s", detail) : 0, hint_text ? errhint("%s", hint_text) : 0));
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
