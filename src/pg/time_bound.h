/*
 * time_bound.h - comparison of an id with a timestamptz, for range scans.
 *
 * Every id type of kid carries a time, and users ask "ids since t".  To let
 * `WHERE id >= t` use the id's btree index (and BRIN, and partition
 * pruning), the id's operator family holds cross-type operators between the
 * id type and timestamptz.  A btree family must be one consistent total
 * order over all its types, so a timestamptz t sorts just below the
 * smallest id of t's time unit (the id <type>_from_timestamp(t) returns):
 * above every id of earlier units, below every id of t's unit and later.
 * Times before the type's range sort below every id, times after it (and
 * infinity) above every id.  No id is equal to a time, and times sort among
 * themselves in exact time order (the family's (timestamptz, timestamptz)
 * members are timestamptz's own comparison, under kid's operator names
 * ~<~ ~<=~ ~=~ ~>=~ ~>~; see src/sql/id_time_order.sql).  Hence:
 *   id >= t, id > t    id is in or after t's unit
 *   id < t, id <= t    id is before t's unit
 *   id = t             never;  id <> t always
 * and `id = ANY(times)` can never return a row twice: two times of one unit
 * are two different keys of the order, neither equal to any id.
 *
 * KID_TIME_COMPARISONS(prefix, cmp) defines, from
 *     int cmp(Datum id, TimestampTz t)   (<0, 0, >0 like id <=> bound(t)),
 * the functions prefix_cmp_timestamptz, timestamptz_cmp_prefix and
 * prefix_{lt,le,eq,ne,ge,gt}_timestamptz, timestamptz_{lt,...}_prefix.
 * A tie with the bound (cmp = 0) counts as id above t.
 */
#ifndef KID_PG_TIME_BOUND_H
#define KID_PG_TIME_BOUND_H

#include "pg/kid_pg.h"

/* id against a time in the family's order: -1 or 1, never 0 (see above). */
#define KID_ID_VS_TIME(cmp, id, t) ((cmp((id), (t)) >= 0) ? 1 : -1)

#define KID_TIME_COMPARISON(prefix, cmp, op, test)                                                 \
    KID_FUNCTION(prefix##_##op##_timestamptz)                                                      \
    {                                                                                              \
        int c = KID_ID_VS_TIME(cmp, PG_GETARG_DATUM(0), PG_GETARG_TIMESTAMPTZ(1));                 \
        PG_RETURN_BOOL(c test 0);                                                                  \
    }                                                                                              \
    KID_FUNCTION(timestamptz_##op##_##prefix)                                                      \
    {                                                                                              \
        int c = -KID_ID_VS_TIME(cmp, PG_GETARG_DATUM(1), PG_GETARG_TIMESTAMPTZ(0));                \
        PG_RETURN_BOOL(c test 0);                                                                  \
    }

#define KID_TIME_COMPARISONS(prefix, cmp)                                                          \
    KID_TIME_COMPARISON(prefix, cmp, lt, <)                                                        \
    KID_TIME_COMPARISON(prefix, cmp, le, <=)                                                       \
    KID_TIME_COMPARISON(prefix, cmp, eq, ==)                                                       \
    KID_TIME_COMPARISON(prefix, cmp, ne, !=)                                                       \
    KID_TIME_COMPARISON(prefix, cmp, ge, >=)                                                       \
    KID_TIME_COMPARISON(prefix, cmp, gt, >)                                                        \
    KID_FUNCTION(prefix##_cmp_timestamptz)                                                         \
    {                                                                                              \
        PG_RETURN_INT32(KID_ID_VS_TIME(cmp, PG_GETARG_DATUM(0), PG_GETARG_TIMESTAMPTZ(1)));        \
    }                                                                                              \
    KID_FUNCTION(timestamptz_cmp_##prefix)                                                         \
    {                                                                                              \
        PG_RETURN_INT32(-KID_ID_VS_TIME(cmp, PG_GETARG_DATUM(1), PG_GETARG_TIMESTAMPTZ(0)));       \
    }

namespace kid::pg {

/*
 * Where a timestamptz falls relative to a type's time range
 * [min_unix_us, max_unix_us] in Unix microseconds: -1 before it (or
 * -infinity), +1 after it (or infinity), 0 inside, with *unix_us set.
 * min_unix_us must be at least INT64_MIN + POSTGRES_EPOCH_UNIX_US.
 */
inline int time_in_range(TimestampTz t, int64_t min_unix_us, int64_t max_unix_us, int64_t *unix_us)
{
    if (TIMESTAMP_IS_NOBEGIN(t))
        return -1;
    if (TIMESTAMP_IS_NOEND(t))
        return 1;
    /*
     * Compare on PostgreSQL's scale first: t + POSTGRES_EPOCH_UNIX_US
     * overflows for the last 30 years of timestamptz (from 294247), which
     * would wrap such a time below every id.
     */
    if (t < min_unix_us - POSTGRES_EPOCH_UNIX_US)
        return -1;
    if (t > max_unix_us - POSTGRES_EPOCH_UNIX_US)
        return 1;
    *unix_us = unix_us_from_timestamptz(t);
    return 0;
}

} // namespace kid::pg

#endif
