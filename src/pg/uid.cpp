/*
 * uid.cpp - the Erlang uid ids in SQL: types uid (64-bit local) and
 * uid_global (96-bit), generation, conversion, decoding.  Layouts and text
 * are in src/core/uid.cpp.
 */
#include "pg/fixed_bytes_type.h"
#include "pg/horizon.h"
#include "pg/lease.h"
#include "pg/time_bound.h"
#include "core/uid.h"
#include "pg/uint64_type.h"

extern "C" {
#include "funcapi.h"
#include "miscadmin.h"
#include "access/htup_details.h"
#include "utils/timestamp.h"
}

using kid::UidFields;
using kid::UidGlobal;

static const char UID[] = "uid";
static const char UID_GLOBAL[] = "uid_global";

static const char *uid_global_bytes_invalid(const uint8_t *bytes)
{
    return kid::uid_global_invalid(*reinterpret_cast<const UidGlobal *>(bytes));
}

KID_UINT64_TYPE(uid, UID, kid::uid_local_invalid)
KID_FIXED_BYTES_TYPE(uid_global, kid::UID_GLOBAL_SIZE, UID_GLOBAL, uid_global_bytes_invalid)

static inline const UidGlobal *global_arg(FunctionCallInfo fcinfo, int n)
{
    return reinterpret_cast<const UidGlobal *>(PG_GETARG_POINTER(n));
}

static inline Datum global_datum(const UidGlobal &g)
{
    UidGlobal *result = static_cast<UidGlobal *>(palloc(sizeof(UidGlobal)));
    *result = g;
    return PointerGetDatum(result);
}

static const char LOCAL_FORM[] =
    "A uid is 11 characters of "
    "\".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz\" "
    "with zero tail bits, seconds at most 999999 and a step at most 976.";
static const char GLOBAL_FORM[] =
    "A uid_global is 16 characters of "
    "\".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz\" "
    "with zero tail bits, seconds at most 999999 (their top 10 bits at most 976) and a step at "
    "most 976.";

/* A literal that decodes and holds valid fields. */
static bool local_decode_valid(const char *text, size_t len, uint64_t *id)
{
    return kid::uid_local_decode(text, len, id) && !kid::uid_local_invalid(*id);
}

static bool global_decode_valid(const char *text, size_t len, UidGlobal *g)
{
    return kid::uid_global_decode(text, len, g) && !kid::uid_global_invalid(*g);
}

KID_FUNCTION(uid_in)
{
    uint64_t value;
    if (!kid::pg::decode_input(fcinfo, PG_GETARG_CSTRING(0), UID, LOCAL_FORM, local_decode_valid,
                               &value))
        return (Datum)0;
    return UInt64GetDatum(value);
}

KID_FUNCTION(uid_out)
{
    PG_RETURN_CSTRING(kid::pg::encode_text(kid::UID_LOCAL_TEXT_LEN, kid::uid_local_encode,
                                           DatumGetUInt64(PG_GETARG_DATUM(0))));
}

KID_FUNCTION(uid_global_in)
{
    UidGlobal value;
    if (!kid::pg::decode_input(fcinfo, PG_GETARG_CSTRING(0), UID_GLOBAL, GLOBAL_FORM,
                               global_decode_valid, &value))
        return (Datum)0;
    return global_datum(value);
}

KID_FUNCTION(uid_global_out)
{
    PG_RETURN_CSTRING(kid::pg::encode_text(kid::UID_GLOBAL_TEXT_LEN, kid::uid_global_encode,
                                           *global_arg(fcinfo, 0)));
}

/* The fields of the 1.024 ms step holding t; ERROR outside 1970.. (A's 20 bits). */
static UidFields fields_arg(FunctionCallInfo fcinfo, int n, const char *type_name)
{
    TimestampTz t = PG_GETARG_TIMESTAMPTZ(n);
    UidFields f;
    if (!kid::uid_fields_from_unix_us(kid::pg::finite_unix_us(type_name, t), &f))
        kid::pg::report_time_out_of_range(type_name, t);
    return f;
}

/*
 * The neighbourhood interval of argument n, or the server's kid.uid_interval
 * when the call has no argument n: the SQL functions without the
 * neighbourhood argument share the C function with those that have it.
 * kid.uid_interval is fixed while the server runs (while a session runs
 * when kid is not preloaded), which is why those can be IMMUTABLE.
 */
static int interval_arg(FunctionCallInfo fcinfo, int n)
{
    if (PG_NARGS() <= n)
        return kid::pg::uid_interval;
    int32 interval = PG_GETARG_INT32(n);
    if (interval < kid::UID_INTERVAL_MIN || interval > kid::UID_INTERVAL_MAX)
        kid::pg::report_out_of_range(UID_GLOBAL, "neighborhood interval", interval,
                                     kid::UID_INTERVAL_MIN, kid::UID_INTERVAL_MAX);
    return interval;
}

static uint32_t node_arg(FunctionCallInfo fcinfo, int n)
{
    int64 node = PG_GETARG_INT64(n);
    if (node < 0 || node > INT64_C(0xFFFFFFFF))
        kid::pg::report_out_of_range(UID_GLOBAL, "node", node, 0, INT64_C(0xFFFFFFFF));
    return static_cast<uint32_t>(node);
}

/*
 * Range-scan comparisons: t stands for the smallest id of its 1.024 ms step.
 * Times before 1970 compare below every id, times past A's 20 bits
 * (kid::UID_MAX_UNIX_US) above.
 */

static UidFields bound_fields(int64_t unix_us)
{
    UidFields f;
    /* Cannot fail: time_in_range kept unix_us within 0..kid::UID_MAX_UNIX_US. */
    if (!kid::uid_fields_from_unix_us(unix_us, &f))
        f = UidFields{0xFFFFF, 999999, 976, 0, 0};
    return f;
}

static int uid_cmp_time(Datum id, TimestampTz t)
{
    int64_t unix_us;
    int where = kid::pg::time_in_range(t, 0, kid::UID_MAX_UNIX_US, &unix_us);
    if (where != 0)
        return -where;
    UidFields f = bound_fields(unix_us);
    return kid::pg::uint64_cmp(DatumGetUInt64(id), kid::uid_local_pack(f));
}

/*
 * The last bound computed, per backend: an index scan compares every tuple
 * with the same t, and packing the 96-bit bound each time made
 * `gid >= t` some 15% slower than `gid >= uid_global_from_timestamp(t)`.
 * (The interval is fixed while the server runs; it is part of the key all
 * the same.)
 */
static struct {
    bool valid;
    TimestampTz t;
    int interval;
    UidGlobal bound;
} last_global_bound;

static int uid_global_cmp_time(Datum id, TimestampTz t)
{
    int64_t unix_us;
    int where = kid::pg::time_in_range(t, 0, kid::UID_MAX_UNIX_US, &unix_us);
    if (where != 0)
        return -where;
    if (!last_global_bound.valid || last_global_bound.t != t ||
        last_global_bound.interval != kid::pg::uid_interval) {
        last_global_bound.bound = kid::uid_global_pack(bound_fields(unix_us),
                                                       kid::pg::uid_interval);
        last_global_bound.t = t;
        last_global_bound.interval = kid::pg::uid_interval;
        last_global_bound.valid = true;
    }
    int r = memcmp(DatumGetPointer(id), last_global_bound.bound.bytes, kid::UID_GLOBAL_SIZE);
    return (r > 0) - (r < 0);
}

KID_TIME_COMPARISONS(uid, uid_cmp_time)
KID_TIME_COMPARISONS(uid_global, uid_global_cmp_time)

/*
 * The next word of the server-wide counter: (linear 1.024 ms step << 14 |
 * sequence); see kid::uid_step.  An exhausted step waits (interruptibly)
 * rather than run more than UID_MAX_AHEAD_STEPS ahead of the clock, or of
 * the trusted time while the clock reads below it (the highest clock
 * reading and the uid floor, advanced by the monotonic time since:
 * src/core/trusted_time.h).
 */
static UidFields next_uid_fields(const char *type_name)
{
    kid::pg::KidShared *s = kid::pg::shared_for_generation(type_name);
    kid::pg::horizon_enter_counter(kid::pg::SCHEME_UID, s);
    kid::pg::CounterGenerator *gen = &s->counters[kid::pg::SCHEME_UID];
    uint64_t next = 0;
    bool regressed;
    for (;;) {
        int64_t now = kid::pg::counter_clock(kid::pg::SCHEME_UID, gen, &regressed);
        /* First as if the clock were the limit: the common case needs no other clock. */
        int64_t trusted = now;
        uint64 last = pg_atomic_read_u64(&gen->state);
        kid::UidStep step;
        for (;;) {
            step = kid::uid_step(last, now, trusted, &next);
            if (step == kid::UidStep::wait && trusted == now) {
                trusted = kid::pg::counter_trusted(gen);
                step = kid::uid_step(last, now, trusted, &next);
            }
            if (step == kid::UidStep::wait ||
                pg_atomic_compare_exchange_u64(&gen->state, &last, next))
                break;
        }
        if (step != kid::UidStep::wait)
            break;
        kid::pg::count_stat(kid::pg::SCHEME_UID, kid::pg::STAT_OVERFLOW_WAITS);
        pg_usleep(100);
        CHECK_FOR_INTERRUPTS();
    }
    kid::pg::count_stat(kid::pg::SCHEME_UID, kid::pg::STAT_GENERATED);
    if (regressed)
        kid::pg::count_stat(kid::pg::SCHEME_UID, kid::pg::STAT_REGRESSIONS);
    UidFields f = kid::uid_fields_from_word(next);
    kid::pg::lease_cover(s, kid::pg::scheme_lease_line(kid::pg::SCHEME_UID),
                         kid::uid_step_end_us(f));
    return f;
}

KID_FUNCTION(uid_new)
{
    return UInt64GetDatum(kid::uid_local_pack(next_uid_fields(UID)));
}

/*
 * After a kid.uid_interval change, a uid_global made before the guard
 * could equal one made under the old interval (see
 * kid::uid_interval_change_guard_us): refuse, naming the setting.  The
 * check comes before the id is taken, so a refusal uses up nothing; local
 * uids (no node field, no interval) are not affected.
 */
static void check_uid_interval_guard(kid::pg::KidShared *s)
{
    kid::pg::UidLeaseState &lease = s->counters[kid::pg::SCHEME_UID].lease_state.uid;
    int64 guard = static_cast<int64>(pg_atomic_read_u64(&lease.global_guard_us));
    if (likely(guard == 0))
        return;
    int64 word_us = kid::uid_unix_us(
        kid::uid_fields_from_word(pg_atomic_read_u64(&s->counters[kid::pg::SCHEME_UID].state)));
    int64 now = kid::pg::now_unix_us();
    /* The next id is above both the clock's step and the state word. */
    if (now >= guard || word_us >= guard)
        return;
    pg_read_barrier(); /* pairs with raise_uid_guard: the interval is written before the guard */
    int old_interval = lease.guard_interval;
    ereport(
        ERROR,
        (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
         errmsg("cannot generate uid_global ids until %s: kid.uid_interval changed from %d to %d",
                timestamptz_to_str(kid::pg::timestamptz_from_unix_us(guard)), old_interval,
                kid::pg::uid_interval),
         errdetail("The interval decides where the node fingerprint sits in a uid_global, so "
                   "an id made under %d within the same 2^%d-second block as ids made under "
                   "%d can have the same 96 bits as one of them.",
                   kid::pg::uid_interval,
                   old_interval > kid::pg::uid_interval ? old_interval : kid::pg::uid_interval,
                   old_interval),
         errhint("Wait until then, or set kid.uid_interval back to %d. uid_new() is not "
                 "affected.",
                 old_interval)));
}

KID_FUNCTION(uid_global_new)
{
    kid::pg::KidShared *s = kid::pg::shared_for_generation(UID_GLOBAL);
    check_uid_interval_guard(s);
    UidFields f = next_uid_fields(UID_GLOBAL);
    f.node = kid::pg::uid_node;
    return global_datum(kid::uid_global_pack(f, kid::pg::uid_interval));
}

/* The commit horizon (horizon.h): the smallest uid of the horizon's key (the state word). */
KID_FUNCTION(uid_safe_horizon)
{
    uint64 word = kid::pg::horizon_compute(kid::pg::SCHEME_UID, "uid_safe_horizon");
    return UInt64GetDatum(kid::uid_local_pack(kid::uid_fields_from_word(word)));
}

/*
 * The same as a uid_global of this server: the node field sits between the
 * high and the low bits of the time (kid::uid_global_pack), so only with
 * this server's own node does the id order the server's ids by the word.
 */
KID_FUNCTION(uid_global_safe_horizon)
{
    uint64 word = kid::pg::horizon_compute(kid::pg::SCHEME_UID, "uid_global_safe_horizon");
    UidFields f = kid::uid_fields_from_word(word);
    f.node = kid::pg::uid_node;
    return global_datum(kid::uid_global_pack(f, kid::pg::uid_interval));
}

/*
 * The fields of a uid or uid_global for a caller-given time, for
 * backfills (kid::uid_fields_with_time): the time's step, and a sequence
 * from the server-wide backfill sequence (one for all times) that uid and
 * uid_global share.  What it promises, and what not, is in src/sql/uid.sql.
 */
static UidFields fields_with_time(FunctionCallInfo fcinfo, const char *type_name)
{
    TimestampTz t = PG_GETARG_TIMESTAMPTZ(0);
    int64_t unix_us = kid::pg::finite_unix_us(type_name, t);
    uint64 sequence = kid::pg::next_backfill_sequence(type_name, kid::pg::SCHEME_UID);
    UidFields f;
    if (!kid::uid_fields_with_time(unix_us, sequence, &f))
        kid::pg::report_time_out_of_range(type_name, t);
    return f;
}

KID_FUNCTION(uid_new_with_time)
{
    return UInt64GetDatum(kid::uid_local_pack(fields_with_time(fcinfo, UID)));
}

/* This server's node fingerprint and kid.uid_interval, as uid_global_new(). */
KID_FUNCTION(uid_global_new_with_time)
{
    UidFields f = fields_with_time(fcinfo, UID_GLOBAL);
    f.node = kid::pg::uid_node;
    return global_datum(kid::uid_global_pack(f, kid::pg::uid_interval));
}

KID_FUNCTION(uid_to_global)
{
    UidFields f = kid::uid_local_unpack(DatumGetUInt64(PG_GETARG_DATUM(0)));
    /* uid_to_global(uid) takes this server's fingerprint, fixed like kid.uid_interval. */
    f.node = PG_NARGS() > 1 ? node_arg(fcinfo, 1) : kid::pg::uid_node;
    return global_datum(kid::uid_global_pack(f, interval_arg(fcinfo, 2)));
}

KID_FUNCTION(uid_from_timestamp)
{
    return UInt64GetDatum(kid::uid_local_pack(fields_arg(fcinfo, 0, UID)));
}

KID_FUNCTION(uid_global_from_timestamp)
{
    UidFields f = fields_arg(fcinfo, 0, UID_GLOBAL);
    return global_datum(kid::uid_global_pack(f, interval_arg(fcinfo, 1)));
}

KID_FUNCTION(uid_to_timestamp)
{
    UidFields f = kid::uid_local_unpack(DatumGetUInt64(PG_GETARG_DATUM(0)));
    PG_RETURN_TIMESTAMPTZ(kid::pg::timestamptz_from_unix_us(kid::uid_unix_us(f)));
}

/*
 * The fields of a uid_global under the interval of argument n (or
 * kid.uid_interval).  Input checked the top 10 bits of the seconds; the
 * rest depends on the interval, and seconds above 999999 name no Erlang
 * time: 22008 instead of a time in the next megasecond (which such an id
 * sorts before).
 */
static UidFields global_fields(FunctionCallInfo fcinfo, int n)
{
    int interval = interval_arg(fcinfo, n);
    UidFields f = kid::uid_global_unpack(*global_arg(fcinfo, 0), interval);
    if (!kid::uid_global_seconds_valid(f)) {
        char text[kid::UID_GLOBAL_TEXT_LEN + 1];
        kid::uid_global_encode(*global_arg(fcinfo, 0), text);
        text[kid::UID_GLOBAL_TEXT_LEN] = '\0';
        ereport(ERROR,
                (errcode(ERRCODE_DATETIME_FIELD_OVERFLOW),
                 errmsg("uid_global %s has no time with neighbourhood interval %d", text, interval),
                 errdetail("Its seconds field read with that interval is %u, above 999999: "
                           "it was made with another interval.",
                           f.sec)));
    }
    return f;
}

KID_FUNCTION(uid_global_to_timestamp)
{
    UidFields f = global_fields(fcinfo, 1);
    PG_RETURN_TIMESTAMPTZ(kid::pg::timestamptz_from_unix_us(kid::uid_unix_us(f)));
}

static Datum info_tuple(FunctionCallInfo fcinfo, const UidFields &f, bool with_node)
{
    Datum values[6];
    int n = 0;
    values[n++] = TimestampTzGetDatum(kid::pg::timestamptz_from_unix_us(kid::uid_unix_us(f)));
    values[n++] = Int32GetDatum(static_cast<int32>(f.mega));
    values[n++] = Int32GetDatum(static_cast<int32>(f.sec));
    values[n++] = Int32GetDatum(static_cast<int32>(kid::uid_step_us(f)));
    if (with_node)
        values[n++] = Int64GetDatum(static_cast<int64>(f.node));
    values[n++] = Int32GetDatum(static_cast<int32>(f.seq));
    return kid::pg::info_record(fcinfo, nullptr, values, n);
}

KID_FUNCTION(uid_info)
{
    return info_tuple(fcinfo, kid::uid_local_unpack(DatumGetUInt64(PG_GETARG_DATUM(0))), false);
}

KID_FUNCTION(uid_global_info)
{
    return info_tuple(fcinfo, global_fields(fcinfo, 1), true);
}

KID_FUNCTION(uid_node_fingerprint)
{
    PG_RETURN_INT64(static_cast<int64>(kid::pg::uid_node));
}

/* The older RFC 4648 base64url text of the library (same bits, does not sort). */
KID_FUNCTION(uid_to_base64url)
{
    char buf[kid::UID_LOCAL_TEXT_LEN];
    kid::uid_local_encode_base64url(DatumGetUInt64(PG_GETARG_DATUM(0)), buf);
    PG_RETURN_TEXT_P(cstring_to_text_with_len(buf, kid::UID_LOCAL_TEXT_LEN));
}

static bool local_decode_base64url_valid(const char *text, size_t len, uint64_t *id)
{
    return kid::uid_local_decode_base64url(text, len, id) && !kid::uid_local_invalid(*id);
}

static bool global_decode_base64url_valid(const char *text, size_t len, UidGlobal *g)
{
    return kid::uid_global_decode_base64url(text, len, g) && !kid::uid_global_invalid(*g);
}

KID_FUNCTION(uid_from_base64url)
{
    text *t = PG_GETARG_TEXT_PP(0);
    return UInt64GetDatum(
        kid::pg::decode_text<uint64_t>(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), UID,
                                       "Expected 11 base64url characters of a valid uid.",
                                       local_decode_base64url_valid));
}

KID_FUNCTION(uid_global_to_base64url)
{
    char buf[kid::UID_GLOBAL_TEXT_LEN];
    kid::uid_global_encode_base64url(*global_arg(fcinfo, 0), buf);
    PG_RETURN_TEXT_P(cstring_to_text_with_len(buf, kid::UID_GLOBAL_TEXT_LEN));
}

KID_FUNCTION(uid_global_from_base64url)
{
    text *t = PG_GETARG_TEXT_PP(0);
    return global_datum(
        kid::pg::decode_text<UidGlobal>(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), UID_GLOBAL,
                                        "Expected 16 base64url characters of a valid uid_global.",
                                        global_decode_base64url_valid));
}
