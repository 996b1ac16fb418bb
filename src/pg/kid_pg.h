/*
 * kid_pg.h - what every file of the PostgreSQL boundary layer shares.
 *
 * The boundary layer (src/pg/) is the only code that includes PostgreSQL
 * headers.  Its rules, from CONTRIBUTING.md:
 *   - every SQL-callable function is declared with KID_FUNCTION (directly,
 *     or through the macros that declare a type's functions:
 *     fixed_bytes_type.h, uint64_type.h, time_bound.h), whose extern "C"
 *     shim catches any C++ exception and turns it into an ERROR after the
 *     catch block has ended; every other function PostgreSQL calls (a hook,
 *     an exit callback, a GUC hook, a WAL redo function, a sort comparator)
 *     is noexcept and handed over through pg_callback;
 *   - bodies hold only trivially destructible locals, because ereport(ERROR)
 *     longjmps straight through them;
 *   - the id logic itself lives in src/core/, which never throws and never
 *     allocates, and reports problems as status values that the body turns
 *     into an ereport with the right SQLSTATE.
 */
#ifndef KID_PG_H
#define KID_PG_H

#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>

extern "C" {
#include "postgres.h"

#include "fmgr.h"
#include "utils/timestamp.h"
#if PG_VERSION_NUM >= 160000
/* 16 moved SET_VARSIZE, VARDATA and the other varlena macros out of postgres.h. */
#include "varatt.h"
#endif
}

namespace kid::pg {

/*
 * Hand a callback to PostgreSQL (a hook, an exit callback, a GUC hook, a
 * WAL resource manager function, a sort comparator): compiles only when
 * the function is noexcept.  See CONTRIBUTING.md, "Callbacks".
 */
template <class R, class... A> constexpr auto pg_callback(R (*f)(A...) noexcept) noexcept
{
    return f;
}

/* ERROR for a C++ exception caught at the boundary; called after the catch block. */
[[noreturn]] void report_cpp_exception(bool out_of_memory, const char *message);

/*
 * Run a function body; a C++ exception escaping it becomes an ERROR.  A
 * template so that the body is inlined: the try block costs nothing until
 * something throws.
 */
template <Datum (*Body)(FunctionCallInfo)> inline Datum call_guarded(FunctionCallInfo fcinfo)
{
    /*
     * The message is copied out of the exception so that ereport runs after
     * the catch block has ended: longjmp'ing out of a catch block would skip
     * the destruction of the exception object.
     */
    char message[256];
    bool out_of_memory = false;
    try {
        return Body(fcinfo);
    } catch (const std::bad_alloc &) {
        out_of_memory = true;
        message[0] = '\0';
    } catch (const std::exception &e) {
        strlcpy(message, e.what(), sizeof(message));
    } catch (...) {
        strlcpy(message, "unknown exception", sizeof(message));
    }
    report_cpp_exception(out_of_memory, message);
}

/*
 * 22P02 "invalid input syntax for type <type>: "<text>"", showing at most the
 * first SHOWN_INPUT_MAX bytes of the text, cut on a character boundary of the
 * database encoding (then followed by "...").  Every message that quotes
 * user input goes through here, or quotes text already checked to be ASCII.
 */
constexpr int SHOWN_INPUT_MAX = 200;

/*
 * What the message adds when the rejected text reads as a date or time
 * (PostgreSQL's own datetime parser decides).  An untyped literal or
 * parameter next to an id (WHERE id >= '2026-11-01', or $1 from a driver
 * that sends its time values untyped) is resolved as the id type, and its
 * input fails: the HINT says how to write the time so that the id/timestamptz
 * operators apply.  No single id can stand for a time under every operator
 * (a time sorts just below the smallest id of its unit, so id >= t and
 * id > t agree and id = t is never true), so the input does not guess one.
 */
enum class TimeHint {
    none,            /* not a type a time is written for (base64url decoders) */
    compare_as_time, /* an id type with the timestamptz operators */
    codokey,         /* codokey: made from a time by codokey(t, precision, context) */
};

[[noreturn]] void report_invalid_text(const char *type_name, const char *text, size_t len,
                                      const char *detail = nullptr, TimeHint hint = TimeHint::none);

/*
 * The same as a soft error (PostgreSQL 16+): saved into escontext when it is
 * an ErrorSaveContext (pg_input_is_valid, pg_input_error_info, COPY ... ON_ERROR),
 * else an ERROR, as always on 15.  Returns after a saved error: the type's
 * input function then returns (Datum) 0.  The one place that builds the
 * message, its DETAIL and its HINT.
 */
void save_invalid_text(Node *escontext, const char *type_name, const char *text, size_t len,
                       const char *detail, TimeHint hint = TimeHint::none);

/* Whether PostgreSQL's datetime parser reads the text as a timestamptz; never raises. */
bool text_reads_as_time(const char *text, size_t len);

/* 22P03 for binary or bytea input of the wrong size or with invalid fields. */
[[noreturn]] void report_invalid_binary(const char *type_name, const char *detail);

/* 22003 for an integer argument outside its range. */
[[noreturn]] void report_out_of_range(const char *type_name, const char *what, int64_t value,
                                      int64_t min, int64_t max);

/* 22008 for a timestamp outside what a type can hold. */
[[noreturn]] void report_time_out_of_range(const char *type_name, TimestampTz t);

/* PostgreSQL timestamps count microseconds from 2000-01-01; kid's core counts from 1970. */
constexpr int64_t POSTGRES_EPOCH_UNIX_US = INT64_C(946684800000000);

inline int64_t unix_us_from_timestamptz(TimestampTz t)
{
    return t + POSTGRES_EPOCH_UNIX_US;
}

inline TimestampTz timestamptz_from_unix_us(int64_t unix_us)
{
    return unix_us - POSTGRES_EPOCH_UNIX_US;
}

/* The wall clock, in Unix microseconds (clock_gettime, no syscall on Linux). */
int64_t now_unix_us();
/* The same in milliseconds, without the microsecond division. */
int64_t now_unix_ms();

/*
 * Unix microseconds of a finite timestamptz argument; ERROR (22008) for
 * infinity, which no id can hold.
 */
int64_t finite_unix_us(const char *type_name, TimestampTz t);

/*
 * A type's text input: `decode(text, len, &value)` (a core decoder, or a
 * decoder and a validity check), else 22P02 naming the type, with
 * `detail` saying what a valid literal is.
 */
template <class T, class Decode>
inline T decode_text(const char *text, size_t len, const char *type_name, const char *detail,
                     Decode decode)
{
    T value;
    if (!decode(text, len, &value))
        report_invalid_text(type_name, text, len, detail);
    return value;
}

template <class T, class Decode>
inline T decode_text(const char *cstring, const char *type_name, const char *detail, Decode decode)
{
    return decode_text<T>(cstring, strlen(cstring), type_name, detail, decode);
}

/*
 * An id type's text input function: decode_text, but a syntax error is soft
 * where the caller asked for that (fcinfo->context, PostgreSQL 16+): false,
 * and the input function returns (Datum) 0.  Text that reads as a time gets
 * the HINT of TimeHint::compare_as_time.
 */
template <class T, class Decode>
inline bool decode_input(FunctionCallInfo fcinfo, const char *cstring, const char *type_name,
                         const char *detail, Decode decode, T *value)
{
    size_t len = strlen(cstring);
    if (decode(cstring, len, value))
        return true;
    save_invalid_text(fcinfo->context, type_name, cstring, len, detail, TimeHint::compare_as_time);
    return false;
}

/* A type's text output: the `len` characters `encode(value, out)` writes, NUL-terminated, palloc'd. */
template <class Encode, class V> inline char *encode_text(size_t len, Encode encode, const V &value)
{
    char *text = static_cast<char *>(palloc(len + 1));
    encode(value, text);
    text[len] = '\0';
    return text;
}

/*
 * The composite result of an *_info function: `count` values, none NULL.
 * 0A000 "<function> must be called in a context that accepts a record"
 * where the caller accepts none (function nullptr: "this function").
 */
Datum info_record(FunctionCallInfo fcinfo, const char *function, const Datum *values, int count);

} // namespace kid::pg

/*
 * Declare an SQL-callable function `name` whose body follows the macro:
 *
 *   KID_FUNCTION(sno_out) { ... return ...; }
 */
#define KID_FUNCTION(name)                                                                         \
    extern "C" {                                                                                   \
    PG_FUNCTION_INFO_V1(name);                                                                     \
    }                                                                                              \
    static Datum name##_body(FunctionCallInfo fcinfo);                                             \
    Datum name(PG_FUNCTION_ARGS)                                                                   \
    {                                                                                              \
        return kid::pg::call_guarded<name##_body>(fcinfo);                                         \
    }                                                                                              \
    static Datum name##_body(FunctionCallInfo fcinfo)

#endif
