/*
 * koid.cpp - the koid snowflake in SQL: type, koid_new() and decoders.
 * The layout and codec are in src/core/koid.cpp.
 */
#include "core/koid.h"
#include "pg/horizon.h"
#include "pg/lease.h"
#include "pg/time_bound.h"
#include "pg/uint64_type.h"

extern "C" {
#include "funcapi.h"
#include "miscadmin.h"
#include "access/htup_details.h"
#include "utils/datetime.h"
#include "utils/timestamp.h"
}

static const char KOID[] = "koid";

/* Every 64-bit value is a koid. */
KID_UINT64_TYPE(koid, KOID, nullptr)

KID_FUNCTION(koid_in)
{
    uint64_t value;
    if (!kid::pg::decode_input(fcinfo, PG_GETARG_CSTRING(0), KOID,
                               "A koid is 16 lowercase hexadecimal digits.", kid::koid_decode,
                               &value))
        return (Datum)0;
    return UInt64GetDatum(value);
}

KID_FUNCTION(koid_out)
{
    PG_RETURN_CSTRING(kid::pg::encode_text(kid::KOID_TEXT_LEN, kid::koid_encode,
                                           DatumGetUInt64(PG_GETARG_DATUM(0))));
}

static int64_t epoch_ms()
{
    return static_cast<int64_t>(kid::pg::koid_epoch_ms);
}

/* A koid against the smallest koid of t's millisecond (generator 0, counter 0). */
static int koid_cmp_time(Datum id, TimestampTz t)
{
    int64_t unix_us;
    int64_t lo = epoch_ms() * 1000;
    int where = kid::pg::time_in_range(t, lo, lo + (kid::KOID_MAX_MS + 1) * 1000 - 1, &unix_us);
    if (where != 0)
        return -where;
    /* Floor division: unix_us >= lo here. */
    return kid::pg::uint64_cmp(DatumGetUInt64(id), kid::koid_pack((unix_us - lo) / 1000, 0, 0));
}

KID_TIME_COMPARISONS(koid, koid_cmp_time)

/*
 * 55000 when the clock stayed behind the koid state for longer than
 * kid.koid_max_clock_wait_ms, naming why the state is ahead: a koid made
 * at a later time (the clock went back), the floor of a lease (a crash
 * restart or a promotion: koids up to it may have been made), or a move of
 * kid.koid_epoch_ms to a later time (old koids hold larger raw milliseconds
 * than the clock gives under the new epoch).
 */
[[noreturn]] static void report_koid_clock_behind(kid::pg::KidShared *s, uint64 last,
                                                  int64_t now_ms_since_epoch)
{
    kid::pg::KoidLeaseState &lease = s->counters[kid::pg::SCHEME_KOID].lease_state.koid;
    bool at_floor = last <= pg_atomic_read_u64(&lease.floor_word);
    int64 wait_ms = kid::koid_state_ms(last) - now_ms_since_epoch;
    if (at_floor && lease.lease_epoch_ms >= 0 && lease.lease_epoch_ms < epoch_ms())
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("cannot generate koid ids: kid.koid_epoch_ms moved from %lld to %lld, and "
                        "koids made before could be repeated for another %lld ms",
                        static_cast<long long>(lease.lease_epoch_ms),
                        static_cast<long long>(epoch_ms()), static_cast<long long>(wait_ms)),
                 errdetail("A koid holds milliseconds since the epoch: koids made under the old "
                           "epoch hold up to %lld, the clock gives %lld under the new one. "
                           "kid.koid_max_clock_wait_ms is %d ms.",
                           static_cast<long long>(kid::koid_state_ms(last)),
                           static_cast<long long>(now_ms_since_epoch),
                           kid::pg::koid_max_clock_wait_ms),
                 errhint("Wait until then, or set kid.koid_epoch_ms back to %lld.",
                         static_cast<long long>(lease.lease_epoch_ms))));
    /* The floor's time and the clock's, for the operator who must tell which one is wrong. */
    char floor_at[MAXDATELEN + 1], clock_at[MAXDATELEN + 1];
    snprintf(floor_at, sizeof(floor_at), "%s",
             timestamptz_to_str(kid::pg::timestamptz_from_unix_us(
                 kid::koid_ms_start_unix_us(kid::koid_state_ms(last), epoch_ms()))));
    snprintf(clock_at, sizeof(clock_at), "%s",
             timestamptz_to_str(kid::pg::timestamptz_from_unix_us(
                 kid::koid_ms_start_unix_us(now_ms_since_epoch, epoch_ms()))));
    if (at_floor)
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("the system clock is behind the koid floor by %lld ms, more than "
                        "kid.koid_max_clock_wait_ms (%d ms)",
                        static_cast<long long>(wait_ms), kid::pg::koid_max_clock_wait_ms),
                 errdetail("Koids up to %lld ms after the epoch may have been made before this "
                           "server started; the clock reads %lld. Either the clock was ahead "
                           "when ids were made (floor %s is %.3f s ahead of the clock now, %s), "
                           "or the floor is kid.lease written ahead before a crash (up to 10 s), "
                           "the replayed marks of a promoted standby (up to 20 s), or koids made "
                           "under a smaller kid.koid_epoch_ms.",
                           static_cast<long long>(kid::koid_state_ms(last)),
                           static_cast<long long>(now_ms_since_epoch), floor_at,
                           static_cast<double>(wait_ms) / 1000.0, clock_at),
                 errhint("koid waits for the clock to pass the floor. If the clock is right and "
                         "the floor is further ahead than a crash or a promotion explains, ids "
                         "were made while the clock was ahead: see \"A clock that was ahead\" "
                         "in kid's docs/lease.md for what to check before lowering the floors.")));
    ereport(ERROR,
            (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
             errmsg("the system clock is behind the last koid by more than "
                    "kid.koid_max_clock_wait_ms (%d ms)",
                    kid::pg::koid_max_clock_wait_ms),
             errdetail("The last koid was made at %lld ms after the epoch (%s); the clock reads "
                       "%lld (%s): it went back since, or was ahead when that koid was made.",
                       static_cast<long long>(kid::koid_state_ms(last)), floor_at,
                       static_cast<long long>(now_ms_since_epoch), clock_at)));
    pg_unreachable();
}

KID_FUNCTION(koid_new)
{
    kid::pg::KidShared *s = kid::pg::shared_for_generation(KOID);
    kid::pg::horizon_enter_counter(kid::pg::SCHEME_KOID, s);
    kid::pg::CounterGenerator *gen = &s->counters[kid::pg::SCHEME_KOID];
    unsigned generator = static_cast<unsigned>(kid::pg::effective_koid_generator_id());
    uint64 last = pg_atomic_read_u64(&gen->state);
    uint64_t next = 0;
    int64 waited_since_us = 0;
    bool waiting_for_clock = false;
    bool counted_regression = false;

    for (;;) {
        bool regressed; /* koid waits for the clock itself: no trusted time */
        int64_t now_us = kid::pg::counter_clock(kid::pg::SCHEME_KOID, gen, &regressed);
        /* A clock below a reading seen before went back: once per call. */
        if (regressed && !counted_regression) {
            kid::pg::count_stat(kid::pg::SCHEME_KOID, kid::pg::STAT_REGRESSIONS);
            counted_regression = true;
        }
        int64_t now_ms = now_us / 1000 - epoch_ms();
        kid::KoidStep step = kid::koid_step(last, now_ms, &next);
        if (step == kid::KoidStep::ok) {
            if (pg_atomic_compare_exchange_u64(&gen->state, &last, next))
                break;
            continue; /* another backend moved the counter: retry with its value */
        }
        if (step == kid::KoidStep::out_of_range)
            ereport(
                ERROR,
                (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                 errmsg("the system clock is outside the time range of koid"),
                 errdetail("A koid holds 42 bits of milliseconds since kid.koid_epoch_ms = %.0f.",
                           kid::pg::koid_epoch_ms)));
        if (step == kid::KoidStep::overflow) {
            if (kid::pg::koid_overflow_error)
                ereport(ERROR, (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                                errmsg("more than 4096 koids in one millisecond"),
                                errhint("Set kid.koid_overflow_error = off to wait for the next "
                                        "millisecond instead.")));
            kid::pg::count_stat(kid::pg::SCHEME_KOID, kid::pg::STAT_OVERFLOW_WAITS);
        } else { /* clock_behind */
            if (!waiting_for_clock) {
                waiting_for_clock = true;
                waited_since_us = now_us;
            }
            if (now_us - waited_since_us >
                static_cast<int64>(kid::pg::koid_max_clock_wait_ms) * 1000)
                report_koid_clock_behind(s, last, now_ms);
            kid::pg::count_stat(kid::pg::SCHEME_KOID, kid::pg::STAT_CLOCK_WAITS);
        }
        pg_usleep(100);
        CHECK_FOR_INTERRUPTS();
        last = pg_atomic_read_u64(&gen->state);
    }
    kid::pg::count_stat(kid::pg::SCHEME_KOID, kid::pg::STAT_GENERATED);
    kid::pg::lease_cover(s, kid::pg::scheme_lease_line(kid::pg::SCHEME_KOID),
                         kid::koid_ms_end_unix_us(kid::koid_state_ms(next), epoch_ms()));
    return UInt64GetDatum(kid::koid_from_state(next, generator));
}

/* The commit horizon (horizon.h): the koid whose integer is the horizon's key. */
KID_FUNCTION(koid_safe_horizon)
{
    return UInt64GetDatum(kid::pg::horizon_compute(kid::pg::SCHEME_KOID, "koid_safe_horizon"));
}

/*
 * A koid for a caller-given time, for backfills (kid::koid_with_time): the
 * time's millisecond, this server's generator id, and a counter from the
 * server-wide backfill sequence (one for all times).  What it promises, and
 * what not, is in src/sql/koid.sql.
 */
KID_FUNCTION(koid_new_with_time)
{
    TimestampTz t = PG_GETARG_TIMESTAMPTZ(0);
    int64_t unix_us = kid::pg::finite_unix_us(KOID, t);
    uint64 sequence = kid::pg::next_backfill_sequence(KOID, kid::pg::SCHEME_KOID);
    uint64_t id;
    if (!kid::koid_with_time(unix_us, epoch_ms(),
                             static_cast<unsigned>(kid::pg::effective_koid_generator_id()),
                             sequence, &id))
        kid::pg::report_time_out_of_range(KOID, t);
    return UInt64GetDatum(id);
}

KID_FUNCTION(koid_from_timestamp)
{
    TimestampTz t = PG_GETARG_TIMESTAMPTZ(0);
    int64_t unix_us = kid::pg::finite_unix_us(KOID, t);
    int64_t lo = epoch_ms() * 1000;
    if (unix_us < lo || (unix_us - lo) / 1000 > kid::KOID_MAX_MS)
        kid::pg::report_time_out_of_range(KOID, t);
    return UInt64GetDatum(kid::koid_pack((unix_us - lo) / 1000, 0, 0));
}

KID_FUNCTION(koid_to_timestamp)
{
    int64_t ms = kid::koid_ms(DatumGetUInt64(PG_GETARG_DATUM(0)));
    PG_RETURN_TIMESTAMPTZ(kid::pg::timestamptz_from_unix_us((ms + epoch_ms()) * 1000));
}

KID_FUNCTION(koid_info)
{
    uint64_t koid = DatumGetUInt64(PG_GETARG_DATUM(0));
    Datum values[] = {
        TimestampTzGetDatum(
            kid::pg::timestamptz_from_unix_us((kid::koid_ms(koid) + epoch_ms()) * 1000)),
        Int64GetDatum(kid::koid_ms(koid)),
        Int32GetDatum(static_cast<int32>(kid::koid_datacenter(koid))),
        Int32GetDatum(static_cast<int32>(kid::koid_worker(koid))),
        Int32GetDatum(static_cast<int32>(kid::koid_generator_id(koid))),
        Int32GetDatum(static_cast<int32>(kid::koid_counter(koid))),
    };
    return kid::pg::info_record(fcinfo, "koid_info", values, lengthof(values));
}
