/*
 * ulid.cpp - ULIDs kept in PostgreSQL's uuid type: their time, and their
 * 26-character text both ways (src/core/ulid.h).  Ranges by time need
 * nothing of their own: kid's uuid-timestamptz comparisons read the first
 * 48 bits of every uuid, which are a ULID's milliseconds (src/sql/ulid.sql).
 */
#include "core/ulid.h"
#include "pg/kid_pg.h"

extern "C" {
#include "utils/builtins.h"
#include "utils/uuid.h"
}

static_assert(kid::ULID_BYTES == UUID_LEN, "a ULID is a uuid's 16 bytes");

/* ulid_to_timestamp(uuid): the millisecond in its first 48 bits; every uuid has one. */
KID_FUNCTION(ulid_to_timestamp)
{
    const uint8_t *u = PG_GETARG_UUID_P(0)->data;
    PG_RETURN_TIMESTAMPTZ(kid::pg::timestamptz_from_unix_us(kid::ulid_unix_ms(u) * 1000));
}

/* uuid_to_ulid(uuid): its 26 capital digits; every uuid is one. */
KID_FUNCTION(uuid_to_ulid)
{
    char out[kid::ULID_TEXT_LEN];
    kid::ulid_encode(PG_GETARG_UUID_P(0)->data, out);
    PG_RETURN_TEXT_P(cstring_to_text_with_len(out, kid::ULID_TEXT_LEN));
}

/* ulid_to_uuid(text): the uuid of a ULID's text, either case; 22P02 for anything else. */
KID_FUNCTION(ulid_to_uuid)
{
    text *t = PG_GETARG_TEXT_PP(0);
    pg_uuid_t *u = static_cast<pg_uuid_t *>(palloc(sizeof(pg_uuid_t)));
    if (!kid::ulid_decode(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), u->data))
        kid::pg::report_invalid_text(
            "uuid", VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t),
            "A ULID is 26 characters of Crockford's base32 (0-9 and A-Z without I, L, O and U, "
            "in either case), the first one 0 to 7.");
    PG_RETURN_UUID_P(u);
}
