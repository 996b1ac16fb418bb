/*
 * kid_pg.h - what every file of the PostgreSQL boundary layer shares.
 *
 * The boundary layer (src/pg/) is the only code that includes PostgreSQL
 * headers.  Its rules, from CONTRIBUTING.md:
 *   - every function PostgreSQL calls is declared with KID_FUNCTION, whose
 *     extern "C" shim catches any C++ exception and turns it into an ERROR
 *     after the catch block has ended;
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

extern "C" {
#include "postgres.h"

#include "fmgr.h"
#include "utils/timestamp.h"
}

namespace kid::pg {

/* Run a function body; a C++ exception escaping it becomes an ERROR. */
Datum call_guarded(Datum (*body)(FunctionCallInfo), FunctionCallInfo fcinfo);

/* 22P02 "invalid input syntax for type <type>: "<text>"". */
[[noreturn]] void report_invalid_text(const char *type_name, const char *text, size_t len,
                                      const char *detail = nullptr);

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

/*
 * Unix microseconds of a finite timestamptz argument; ERROR (22008) for
 * infinity, which no id can hold.
 */
int64_t finite_unix_us(const char *type_name, TimestampTz t);

} // namespace kid::pg

/*
 * Declare an SQL-callable function `name` whose body follows the macro:
 *
 *   KID_FUNCTION(sno_out) { ... return ...; }
 */
#define KID_FUNCTION(name)                                                              \
    extern "C" {                                                                        \
    PG_FUNCTION_INFO_V1(name);                                                          \
    }                                                                                   \
    static Datum name##_body(FunctionCallInfo fcinfo);                                  \
    Datum name(PG_FUNCTION_ARGS)                                                        \
    {                                                                                   \
        return kid::pg::call_guarded(name##_body, fcinfo);                              \
    }                                                                                   \
    static Datum name##_body(FunctionCallInfo fcinfo)

#endif
