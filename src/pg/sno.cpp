/*
 * sno.cpp - the sno type in SQL: I/O, comparison support, generation and
 * decoding.  The layout, codec and generator are in src/core/sno.cpp.
 */
#include "pg/fixed_bytes_type.h"
#include "pg/horizon.h"
#include "core/radix.h"
#include "pg/lease.h"
#include "pg/id_partitions.h"
#include "core/sno.h"
#include "pg/time_bound.h"

extern "C" {
#include "funcapi.h"
#include "miscadmin.h"
#include "access/htup_details.h"
}

using kid::Sno;

static const char SNO[] = "sno";

static inline const Sno *sno_arg(FunctionCallInfo fcinfo, int n)
{
    return reinterpret_cast<const Sno *>(PG_GETARG_POINTER(n));
}

static inline Datum sno_datum(const Sno &id)
{
    Sno *result = static_cast<Sno *>(palloc(sizeof(Sno)));
    *result = id;
    return PointerGetDatum(result);
}

/* Every 10-byte string is a valid sno: the 39-bit time cannot overflow its range. */
KID_FIXED_BYTES_TYPE(sno, kid::SNO_SIZE, SNO, nullptr)

KID_FUNCTION(sno_in)
{
    Sno value;
    if (!kid::pg::decode_input(fcinfo, PG_GETARG_CSTRING(0), SNO,
                               "An sno is 16 characters from \"23456789abcdefghijklmnopqrstuvwx\".",
                               kid::sno_decode, &value))
        return (Datum)0;
    return sno_datum(value);
}

KID_FUNCTION(sno_out)
{
    PG_RETURN_CSTRING(
        kid::pg::encode_text(kid::SNO_TEXT_LEN, kid::sno_encode, *sno_arg(fcinfo, 0)));
}

static uint8_t meta_arg(FunctionCallInfo fcinfo, int n)
{
    int32 meta = PG_GETARG_INT32(n);
    if (meta < 0 || meta > 255)
        kid::pg::report_out_of_range(SNO, "meta", meta, 0, 255);
    return static_cast<uint8_t>(meta);
}

/* Units of a timestamptz argument; ERROR (22008) outside 2010..2079. */
static int64_t units_arg(FunctionCallInfo fcinfo, int n)
{
    TimestampTz t = PG_GETARG_TIMESTAMPTZ(n);
    int64_t units;
    if (!kid::sno_units_from_unix_us(kid::pg::finite_unix_us(SNO, t), &units))
        kid::pg::report_time_out_of_range(SNO, t);
    return units;
}

KID_FUNCTION(sno_new)
{
    uint8_t meta = meta_arg(fcinfo, 0);
    /* Claims a partition on the first call; later calls find it at once. */
    kid::SnoGenerator *g = kid::pg::sno_backend_generator();
    Sno id;

    for (;;) {
        /*
         * The clock, but never below the clock reading of a commit horizon
         * already computed (horizon.h); read again on every try, after this
         * transaction's pending floor is published.
         */
        int64_t now_ms = kid::pg::horizon_clocked_time(kid::pg::SCHEME_SNO,
                                                       kid::pg::now_unix_us()) /
                         1000;
        int64_t units;
        if (!kid::sno_units_from_unix_ms(now_ms, &units))
            ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                            errmsg("the system clock is outside the time range of sno"),
                            errdetail("sno holds times from 2010-01-01 to 2079-09-07 UTC.")));
        if (kid::sno_generate(g, units, meta, &id) == kid::GenStatus::ok)
            break;
        /*
         * The sequence of this 4 ms unit is used up, or the clock is behind
         * both timelines: wait in small steps, interruptibly, so that
         * statement_timeout and query cancel still work.
         */
        pg_usleep(250);
        CHECK_FOR_INTERRUPTS();
    }

    /* The id's unit is now hi[tick]: the lease must cover the whole unit. */
    int64_t unit_end_us = kid::sno_unit_end_us(g->hi[g->tick]);
    kid::pg::lease_cover(kid::pg::shared,
                         static_cast<kid::pg::LeaseLine>(
                             kid::pg::SCHEMES[kid::pg::SCHEME_SNO].first_line + g->tick),
                         unit_end_us);
    return sno_datum(id);
}

/*
 * An sno at a caller-given time, for backfills: tick 0, this backend's
 * partition, and the partition's backfill sequence.  The sequence lives in
 * the partition's shared-memory slot: it goes on from one owner of the
 * partition to the next (a later session does not repeat the backfill ids
 * of an earlier one), and starts at a random value at server start.  Not
 * guaranteed unique all the same (README): the sequence is 16 bits and
 * wraps after 65536 backfill ids on a partition, a restart starts it at a
 * random place that may overlap the range an earlier run used, and a
 * backfill id can equal an sno_new() id of the same partition, unit, meta
 * and sequence.
 */
KID_FUNCTION(sno_new_with_time)
{
    int64_t units = units_arg(fcinfo, 0);
    uint8_t meta = meta_arg(fcinfo, 1);
    kid::pg::sno_backend_generator();
    int partition = kid::pg::backend_partition();
    kid::pg::IdPartition *p = kid::pg::id_partition(kid::pg::shared, partition);

    kid::SnoFields f;
    f.units = units;
    f.tick = 0;
    f.meta = meta;
    f.partition = static_cast<uint16_t>(kid::pg::node_id << 8 | partition);
    f.sequence = p->sno_backfill_sequence++;
    return sno_datum(kid::sno_pack(f));
}

/*
 * The commit horizon (horizon.h): the smallest sno of the horizon's 4 ms
 * unit.  A key below sno's first time (a pending floor of 0: no horizon and
 * no lease yet when the transaction made its first sno) stands for the
 * smallest sno.  Past its last time the clock is out of range, which
 * horizon_compute reported already.
 */
KID_FUNCTION(sno_safe_horizon)
{
    uint64 us = kid::pg::horizon_compute(kid::pg::SCHEME_SNO, "sno_safe_horizon");
    int64_t units = 0;
    if (static_cast<int64_t>(us) >= kid::SNO_MIN_UNIX_US &&
        !kid::sno_units_from_unix_us(static_cast<int64_t>(us), &units))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("the sno horizon is outside the time range of sno")));
    kid::SnoFields f{};
    f.units = units;
    return sno_datum(kid::sno_pack(f));
}

/* The smallest sno of the 4 ms unit holding `t`: the lower bound for range scans. */
KID_FUNCTION(sno_from_timestamp)
{
    kid::SnoFields f{};
    f.units = units_arg(fcinfo, 0);
    return sno_datum(kid::sno_pack(f));
}

/*
 * An sno against the smallest sno of t's unit, as far as the family's order
 * needs it (time_bound.h: a tie counts as above t): compare the 40-bit time
 * block with units << 1 (tick 0); the bound's other bytes are all zero, so
 * an id with an equal block is at or above the bound.
 */
static int sno_cmp_time(Datum id_datum, TimestampTz t)
{
    int64_t unix_us;
    int where = kid::pg::time_in_range(t, kid::SNO_MIN_UNIX_US, kid::SNO_MAX_UNIX_US, &unix_us);
    if (where != 0)
        return -where;
    int64_t units;
    kid::sno_units_from_unix_us(unix_us, &units);
    const uint8_t *id = reinterpret_cast<const uint8_t *>(DatumGetPointer(id_datum));
    uint64_t block = kid::load_be(id, 5);
    uint64_t bound = static_cast<uint64_t>(units) << 1;
    return block < bound ? -1 : 1;
}

KID_TIME_COMPARISONS(sno, sno_cmp_time)

KID_FUNCTION(sno_to_timestamp)
{
    kid::SnoFields f = kid::sno_unpack(*sno_arg(fcinfo, 0));
    PG_RETURN_TIMESTAMPTZ(kid::pg::timestamptz_from_unix_us(kid::sno_unix_ms(f) * 1000));
}

KID_FUNCTION(sno_meta)
{
    PG_RETURN_INT32(kid::sno_unpack(*sno_arg(fcinfo, 0)).meta);
}

KID_FUNCTION(sno_partition)
{
    PG_RETURN_INT32(kid::sno_unpack(*sno_arg(fcinfo, 0)).partition);
}

KID_FUNCTION(sno_sequence)
{
    PG_RETURN_INT32(kid::sno_unpack(*sno_arg(fcinfo, 0)).sequence);
}

KID_FUNCTION(sno_tick)
{
    PG_RETURN_INT32(static_cast<int32>(kid::sno_unpack(*sno_arg(fcinfo, 0)).tick));
}

KID_FUNCTION(sno_info)
{
    kid::SnoFields f = kid::sno_unpack(*sno_arg(fcinfo, 0));
    Datum values[] = {
        TimestampTzGetDatum(kid::pg::timestamptz_from_unix_us(kid::sno_unix_ms(f) * 1000)),
        Int32GetDatum(static_cast<int32>(f.tick)),
        Int32GetDatum(f.meta),
        Int32GetDatum(f.partition),
        Int32GetDatum(f.sequence),
    };
    return kid::pg::info_record(fcinfo, "sno_info", values, lengthof(values));
}
