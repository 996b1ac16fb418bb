/*
 * uuidv7.cpp - version 7 uuids for PostgreSQL's uuid type: uuidv7_new()
 * (one generator per backend, on its id partition) and its backfills and
 * commit horizon; kid's time order on uuid: comparisons of uuid with
 * timestamptz for the uuid btree and BRIN families, decoding of a version 7
 * uuid's time and the range-scan bound.  Why the comparison reads the first
 * 48 bits of every uuid, version 7 or not: src/sql/uuidv7.sql.
 */
#include "core/trusted_time.h"
#include "core/uuidv7.h"
#include "pg/horizon.h"
#include "pg/database_mark.h"
#include "pg/lease.h"
#include "pg/shared_state.h"
#include "pg/id_partitions.h"
#include "pg/time_bound.h"

extern "C" {
#include "access/xlog.h"
#include "miscadmin.h"
#include "utils/uuid.h"
}

static const char UUID_TYPE[] = "uuid";

/* A uuid against the smallest version 7 uuid of t's millisecond. */
static int uuid_cmp_time(Datum id, TimestampTz t)
{
    int64_t unix_us;
    int where = kid::pg::time_in_range(t, 0, kid::UUIDV7_MAX_UNIX_US, &unix_us);
    if (where != 0)
        return -where;
    return kid::uuid_cmp_unix_ms(DatumGetUUIDP(id)->data, unix_us / 1000);
}

KID_TIME_COMPARISONS(uuid, uuid_cmp_time)

KID_FUNCTION(uuidv7_to_timestamp)
{
    const unsigned char *u = PG_GETARG_UUID_P(0)->data;
    if (!kid::uuid_is_v7(u))
        PG_RETURN_NULL();
    PG_RETURN_TIMESTAMPTZ(kid::pg::timestamptz_from_unix_us(kid::uuid_top48(u) * 1000));
}

KID_FUNCTION(uuidv7_from_timestamp)
{
    TimestampTz t = PG_GETARG_TIMESTAMPTZ(0);
    int64_t unix_us = kid::pg::finite_unix_us(UUID_TYPE, t);
    if (unix_us < 0 || unix_us > kid::UUIDV7_MAX_UNIX_US)
        kid::pg::report_time_out_of_range(UUID_TYPE, t);
    pg_uuid_t *u = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));
    kid::uuidv7_bound(unix_us / 1000, u->data);
    PG_RETURN_UUID_P(u);
}

/* ------------------------------------------------------------------ generation */

/*
 * This backend's version 7 generator (kid::Uuidv7Generator, layout in
 * src/core/uuidv7.h), on the id partition the backend holds
 * (id_partitions.h): its number is the id's partition, unique among the
 * live backends of the server, and the partition keeps the millisecond of
 * its last id for the next owner.  All per-id work is in process memory;
 * shared memory is read per id (the floor epoch, the lease mark, the
 * horizon's force) and written once per millisecond (the partition's last
 * millisecond and statistics), never per id.
 */
static kid::Uuidv7Generator my_gen = {-1, 0, 0, 0, 0};
static uint32 my_floor_epoch = 1;
/* The highest (clock - CLOCK_MONOTONIC) this backend saw, or its floor's: its trusted time. */
static int64_t my_trusted_offset = INT64_MIN;
static uint64 my_generated, my_regressions, my_ahead_waits;

static void uuidv7_trust(int64_t unix_us)
{
    int64_t offset = kid::trusted_offset(unix_us, kid::pg::monotonic_us());
    if (offset > my_trusted_offset)
        my_trusted_offset = offset;
}

/*
 * Raise the generator above `used_ms` (a floor's, or the last owner's
 * millisecond), which counts as used up, and go on past it at the pace of
 * real time without waiting for a clock that is behind it: the next
 * millisecond is trusted from its first microsecond, so the next id is in
 * it at once (from the used millisecond's last microsecond it would wait
 * if CLOCK_MONOTONIC had not moved a microsecond yet).
 */
static void uuidv7_go_past(int64_t used_ms)
{
    if (used_ms >= my_gen.last_ms) {
        my_gen.last_ms = used_ms;
        my_gen.counter = kid::UUIDV7_COUNTER_MAX;
    }
    uuidv7_trust((used_ms + 1) * 1000);
}

/* First id, floors risen (after recovery), or the database's mark to read again. */
static void uuidv7_claim()
{
    kid::pg::KidShared *s = kid::pg::shared_for_generation(UUID_TYPE);
    uint32 epoch = pg_atomic_read_u32(&s->floor_epoch);
    pg_read_barrier();
    /* The backend's id partition, the one its sno ids carry too (one of 256 per server). */
    int partition = kid::pg::claim_id_partition(s);
    int64_t floor_us = static_cast<int64_t>(
        pg_atomic_read_u64(&s->floor_us[kid::pg::scheme_lease_line(kid::pg::SCHEME_UUIDV7)]));
    if (kid::pg::uuidv7_my_partition < 0) {
        uint64 key[2];
        if (!pg_strong_random(key, sizeof(key)))
            ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                            errmsg("could not generate random values for uuidv7_new()")));
        my_gen.k0 = key[0];
        my_gen.k1 = key[1];
        my_gen.calls = 0;
        my_gen.last_ms = -1;
        my_gen.counter = 0;
        /* The last owner's millisecond: ours start above it. */
        LWLockAcquire(s->partition_lock, LW_SHARED);
        const kid::pg::Uuidv7PartitionState &last = kid::pg::id_partition(s, partition)->uuidv7;
        int64_t previous = last.last_ms;
        my_generated = last.generated;
        my_regressions = last.regressions;
        my_ahead_waits = last.ahead_waits;
        LWLockRelease(s->partition_lock);
        /* Reached by the last owner, which may have carried its ids ahead of the clock. */
        if (previous >= 0)
            uuidv7_go_past(previous);
        kid::pg::uuidv7_my_partition = partition;
    }
    /* Past the floor at the pace of real time, not faster (as tid). */
    if (floor_us > 0)
        uuidv7_go_past(floor_us / 1000);
    kid::pg::id_partition(s, kid::pg::uuidv7_my_partition)->uuidv7.last_ms = my_gen.last_ms;
    my_floor_epoch = RecoveryInProgress() ? 1 : epoch;
}

/* Once per millisecond: what the slot keeps for the next owner and for kid_generator_stats(). */
static void uuidv7_publish()
{
    kid::pg::Uuidv7PartitionState &st =
        kid::pg::id_partition(kid::pg::shared, kid::pg::uuidv7_my_partition)->uuidv7;
    st.last_ms = my_gen.last_ms;
    st.generated = my_generated;
    st.regressions = my_regressions;
    st.ahead_waits = my_ahead_waits;
}

KID_FUNCTION(uuidv7_new)
{
    if (unlikely(kid::pg::uuidv7_my_partition < 0 || !kid::pg::database_mark_ok ||
                 my_floor_epoch != pg_atomic_read_u32(&kid::pg::shared->floor_epoch)))
        uuidv7_claim();
    int64_t unix_ms;
    uint32_t counter;
    for (;;) {
        /*
         * Never below the clock reading of a commit horizon already
         * computed (horizon.h): that reading is a clock reading like ours.
         */
        int64_t now_us = kid::pg::horizon_clocked_time(kid::pg::SCHEME_UUIDV7,
                                                       kid::pg::now_unix_us());
        int64_t now_ms = now_us / 1000;
        bool regressed = now_ms < my_gen.last_ms;
        /* First as if the clock were the limit: the common case needs no other clock. */
        kid::Uuidv7Step step = kid::uuidv7_step(&my_gen, now_ms, now_ms, &unix_ms, &counter);
        if (step == kid::Uuidv7Step::wait) {
            /* The counter of a millisecond at or above the clock is full. */
            uuidv7_trust(now_us);
            int64_t trusted_ms = kid::trusted_time(my_trusted_offset, kid::pg::monotonic_us()) /
                                 1000;
            step = kid::uuidv7_step(&my_gen, now_ms, trusted_ms, &unix_ms, &counter);
        }
        if (step == kid::Uuidv7Step::too_late)
            ereport(ERROR,
                    (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                     errmsg("the uuid generator is past the last time a version 7 uuid can hold")));
        if (step != kid::Uuidv7Step::wait) {
            my_regressions += regressed ? 1 : 0;
            my_generated++;
            if (step != kid::Uuidv7Step::same) {
                if (step == kid::Uuidv7Step::ok)
                    uuidv7_trust(now_us);
                uuidv7_publish();
            }
            break;
        }
        my_ahead_waits++;
        uuidv7_publish();
        pg_usleep(50);
        CHECK_FOR_INTERRUPTS();
    }
    /* The lease covers the id's whole millisecond. */
    kid::pg::lease_cover(kid::pg::shared, kid::pg::scheme_lease_line(kid::pg::SCHEME_UUIDV7),
                         unix_ms * 1000 + 999);
    pg_uuid_t *u = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));
    kid::uuidv7_pack(unix_ms, counter, static_cast<uint32_t>(kid::pg::node_id),
                     static_cast<uint32_t>(kid::pg::uuidv7_my_partition),
                     kid::uuidv7_random(&my_gen), u->data);
    PG_RETURN_UUID_P(u);
}

/* The commit horizon (horizon.h): the smallest version 7 uuid of its millisecond. */
KID_FUNCTION(uuidv7_safe_horizon)
{
    uint64 us = kid::pg::horizon_compute(kid::pg::SCHEME_UUIDV7, "uuidv7_safe_horizon");
    pg_uuid_t *u = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));
    kid::uuidv7_bound(static_cast<int64_t>(us / 1000), u->data);
    PG_RETURN_UUID_P(u);
}

/*
 * A version 7 uuid carrying a given time (backfills): the time's
 * millisecond and 74 bits from this backend's SipHash stream (under a key
 * of its own, drawn from pg_strong_random once).  Unique by chance, as
 * core uuidv7(shift) is; it claims no slot and needs no preload.
 */
static uint64_t backfill_k0, backfill_k1, backfill_calls;
static bool backfill_keyed = false;

static uint64_t backfill_random()
{
    if (!backfill_keyed) {
        uint64 key[2];
        if (!pg_strong_random(key, sizeof(key)))
            ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                            errmsg("could not generate random values for uuidv7_new_with_time()")));
        backfill_k0 = key[0];
        backfill_k1 = key[1];
        backfill_keyed = true;
    }
    unsigned char m[8];
    uint64_t n = backfill_calls++;
    for (int i = 0; i < 8; i++)
        m[i] = static_cast<unsigned char>(n >> (8 * i));
    return kid::siphash24(backfill_k0, backfill_k1, m, sizeof(m));
}

KID_FUNCTION(uuidv7_new_with_time)
{
    TimestampTz t = PG_GETARG_TIMESTAMPTZ(0);
    int64_t unix_us = kid::pg::finite_unix_us(UUID_TYPE, t);
    if (unix_us < 0 || unix_us > kid::UUIDV7_MAX_UNIX_US)
        kid::pg::report_time_out_of_range(UUID_TYPE, t);
    uint64_t r1 = backfill_random(), r2 = backfill_random();
    pg_uuid_t *u = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));
    kid::uuidv7_pack(unix_us / 1000, static_cast<uint32_t>(r2 & kid::UUIDV7_COUNTER_MAX),
                     static_cast<uint32_t>(r1 >> 54), static_cast<uint32_t>(r1 >> 46), r1, u->data);
    PG_RETURN_UUID_P(u);
}
