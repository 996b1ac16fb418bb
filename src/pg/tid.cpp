/*
 * tid.cpp - the AT Protocol tid in SQL: type atproto_tid, tid_new() and
 * decoders, record-key validation.  The type is not called "tid" because
 * pg_catalog.tid (tuple identifiers) always comes first on the search path.
 * The layout and codec are in src/core/tid.cpp.
 */
#include "pg/horizon.h"
#include "pg/lease.h"
#include "core/tid.h"
#include "pg/time_bound.h"
#include "pg/uint64_type.h"

extern "C" {
#include "funcapi.h"
#include "miscadmin.h"
#include "access/htup_details.h"
}

static const char TID[] = "atproto_tid";

/* Every 64-bit value is valid tid syntax (bit 63 included), so binary input needs no check. */
KID_UINT64_TYPE(atproto_tid, TID, nullptr)

KID_FUNCTION(atproto_tid_in)
{
    uint64_t value;
    if (!kid::pg::decode_input(fcinfo, PG_GETARG_CSTRING(0), TID,
                               "A tid is 13 characters of \"234567abcdefghijklmnopqrstuvwxyz\", "
                               "the first one of 2-7 or a-j.",
                               kid::tid_decode, &value))
        return (Datum)0;
    return UInt64GetDatum(value);
}

KID_FUNCTION(atproto_tid_out)
{
    PG_RETURN_CSTRING(kid::pg::encode_text(kid::TID_TEXT_LEN, kid::tid_encode,
                                           DatumGetUInt64(PG_GETARG_DATUM(0))));
}

/* A tid against the smallest tid of t's microsecond (clock id 0, bit 63 clear). */
static int tid_cmp_time(Datum id, TimestampTz t)
{
    int64_t unix_us;
    int where = kid::pg::time_in_range(t, 0, kid::TID_MAX_UNIX_US, &unix_us);
    if (where != 0)
        return -where;
    return kid::pg::uint64_cmp(DatumGetUInt64(id), kid::tid_pack(unix_us, 0));
}

KID_TIME_COMPARISONS(atproto_tid, tid_cmp_time)

/*
 * The next tid: see kid::tid_step.  An id may be at most TID_MAX_AHEAD_US
 * ahead of the clock, or of the trusted time while the clock reads below it
 * (the highest clock reading and the tid floor of a restart or promotion,
 * advanced by the monotonic time since: src/core/trusted_time.h).  A caller
 * that would go further sleeps here (interruptibly, counted as an ahead
 * wait) until time has moved on: about 1 id per microsecond, the format's
 * rate, whichever clock bounds it.
 */
KID_FUNCTION(tid_new)
{
    kid::pg::KidShared *s = kid::pg::shared_for_generation(TID);
    kid::pg::horizon_enter_counter(kid::pg::SCHEME_TID, s);
    kid::pg::CounterGenerator *gen = &s->counters[kid::pg::SCHEME_TID];
    uint64 next;
    bool regressed;
    for (;;) {
        int64_t now = kid::pg::counter_clock(kid::pg::SCHEME_TID, gen, &regressed);
        /* First as if the clock were the limit: the common case needs no other clock. */
        int64_t trusted = now;
        uint64 last = pg_atomic_read_u64(&gen->state);
        kid::TidStep step;
        for (;;) {
            uint64_t candidate;
            step = kid::tid_step(last, now, trusted, &candidate);
            if (step == kid::TidStep::wait && trusted == now) {
                trusted = kid::pg::counter_trusted(gen);
                step = kid::tid_step(last, now, trusted, &candidate);
            }
            if (step == kid::TidStep::wait)
                break;
            next = candidate;
            if (next > static_cast<uint64_t>(kid::TID_MAX_UNIX_US))
                ereport(ERROR,
                        (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                         errmsg("the atproto_tid generator is past the last time a tid can hold")));
            /* On failure `last` is reloaded with the value another backend stored. */
            if (pg_atomic_compare_exchange_u64(&gen->state, &last, next))
                break;
        }
        if (step != kid::TidStep::wait)
            break;
        kid::pg::count_stat(kid::pg::SCHEME_TID, kid::pg::STAT_AHEAD_WAITS);
        pg_usleep(50);
        CHECK_FOR_INTERRUPTS();
    }
    kid::pg::count_stat(kid::pg::SCHEME_TID, kid::pg::STAT_GENERATED);
    if (regressed)
        kid::pg::count_stat(kid::pg::SCHEME_TID, kid::pg::STAT_REGRESSIONS);
    kid::pg::lease_cover(s, kid::pg::scheme_lease_line(kid::pg::SCHEME_TID),
                         static_cast<int64_t>(next));
    return UInt64GetDatum(
        kid::tid_pack(static_cast<int64_t>(next), static_cast<unsigned>(kid::pg::node_id)));
}

/*
 * A tid for a caller-given time, for backfills (kid::tid_with_time): the
 * time's microsecond, and a clock id from the server-wide backfill
 * sequence (one for all times) that is never kid.node_id, so that it never
 * equals an id tid_new() makes on this server while kid.node_id stays as
 * it is.  What it promises, and what not, is in src/sql/tid.sql.
 */
KID_FUNCTION(tid_new_with_time)
{
    TimestampTz t = PG_GETARG_TIMESTAMPTZ(0);
    int64_t unix_us = kid::pg::finite_unix_us(TID, t);
    uint64 sequence = kid::pg::next_backfill_sequence(TID, kid::pg::SCHEME_TID);
    uint64_t id;
    if (!kid::tid_with_time(unix_us, static_cast<unsigned>(kid::pg::node_id), sequence, &id))
        kid::pg::report_time_out_of_range(TID, t);
    return UInt64GetDatum(id);
}

/* The commit horizon (horizon.h): the smallest tid of its microsecond. */
KID_FUNCTION(tid_safe_horizon)
{
    uint64 us = kid::pg::horizon_compute(kid::pg::SCHEME_TID, "tid_safe_horizon");
    return UInt64GetDatum(kid::tid_pack(static_cast<int64_t>(us), 0));
}

KID_FUNCTION(tid_from_timestamp)
{
    TimestampTz t = PG_GETARG_TIMESTAMPTZ(0);
    int64_t unix_us = kid::pg::finite_unix_us(TID, t);
    if (unix_us < 0 || unix_us > kid::TID_MAX_UNIX_US)
        kid::pg::report_time_out_of_range(TID, t);
    return UInt64GetDatum(kid::tid_pack(unix_us, 0));
}

KID_FUNCTION(tid_to_timestamp)
{
    PG_RETURN_TIMESTAMPTZ(
        kid::pg::timestamptz_from_unix_us(kid::tid_unix_us(DatumGetUInt64(PG_GETARG_DATUM(0)))));
}

KID_FUNCTION(tid_clock_id)
{
    PG_RETURN_INT32(static_cast<int32>(kid::tid_clock_id(DatumGetUInt64(PG_GETARG_DATUM(0)))));
}

KID_FUNCTION(tid_info)
{
    uint64_t tid = DatumGetUInt64(PG_GETARG_DATUM(0));
    Datum values[] = {
        TimestampTzGetDatum(kid::pg::timestamptz_from_unix_us(kid::tid_unix_us(tid))),
        Int64GetDatum(kid::tid_unix_us(tid)),
        Int32GetDatum(static_cast<int32>(kid::tid_clock_id(tid))),
        BoolGetDatum((tid >> 63) != 0),
    };
    return kid::pg::info_record(fcinfo, "tid_info", values, lengthof(values));
}

KID_FUNCTION(atproto_rkey_is_valid)
{
    text *t = PG_GETARG_TEXT_PP(0);
    PG_RETURN_BOOL(kid::atproto_rkey_is_valid(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t)));
}
