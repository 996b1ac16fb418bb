/*
 * uuidv7.cpp - kid's time order on PostgreSQL's uuid type: comparisons of
 * uuid with timestamptz for the uuid btree and BRIN families, decoding of a
 * version 7 uuid's time and the range-scan bound.  Why the comparison reads
 * the first 48 bits of every uuid, version 7 or not: src/sql/uuidv7.sql.
 */
#include "core/uuidv7.h"
#include "pg/time_bound.h"

extern "C" {
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

/* SQL-callable functions defined here: uuid_lt_timestamptz, uuid_le_timestamptz,
 * uuid_eq_timestamptz, uuid_ne_timestamptz, uuid_ge_timestamptz, uuid_gt_timestamptz,
 * uuid_cmp_timestamptz, timestamptz_lt_uuid, timestamptz_le_uuid, timestamptz_eq_uuid,
 * timestamptz_ne_uuid, timestamptz_ge_uuid, timestamptz_gt_uuid, timestamptz_cmp_uuid. */
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
