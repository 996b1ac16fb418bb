/*
 * codokey.cpp - the codokey type in SQL: reverse-chronological radix-36
 * date keys.  The type holds the key characters (1..16 of 0-9a-z) and
 * orders them as bytes, so ascending order is newest first within a
 * context.  Encoding and decoding take the context's three numbers; the
 * named contexts of table codokey_context are looked up in SQL
 * (src/sql/codokey.sql).  The arithmetic is in src/core/codokey.cpp.
 */
#include "core/codokey.h"
#include "pg/kid_pg.h"

extern "C" {
#include "funcapi.h"
#include "access/htup_details.h"
#include "catalog/pg_collation.h"
#include "common/hashfn.h"
#include "common/int.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/sortsupport.h"
}

static const char CODOKEY[] = "codokey";
static const char KEY_FORM[] = "A codokey is 1 to 16 characters of 0-9 and a-z.";

/* The key's characters (no terminator). */
static bool key_chars_valid(const char *p, size_t len)
{
    if (len < 1 || len > kid::CODOKEY_MAX_LEN)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!kid::codokey_valid_char(p[i]))
            return false;
    return true;
}

static Datum key_datum(const char *p, size_t len)
{
    text *t = static_cast<text *>(palloc(VARHDRSZ + len));
    SET_VARSIZE(t, VARHDRSZ + len);
    memcpy(VARDATA(t), p, len);
    return PointerGetDatum(t);
}

KID_FUNCTION(codokey_in)
{
    const char *s = PG_GETARG_CSTRING(0);
    size_t len = strlen(s);
    if (!key_chars_valid(s, len)) {
        kid::pg::save_invalid_text(fcinfo->context, CODOKEY, s, len, KEY_FORM,
                                   kid::pg::TimeHint::codokey);
        return (Datum)0;
    }
    return key_datum(s, len);
}

KID_FUNCTION(codokey_out)
{
    text *t = PG_GETARG_TEXT_PP(0);
    PG_RETURN_CSTRING(text_to_cstring(t));
}

KID_FUNCTION(codokey_recv)
{
    StringInfo buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
    int len = buf->len - buf->cursor;
    const char *p = pq_getmsgbytes(buf, len);
    if (!key_chars_valid(p, static_cast<size_t>(len)))
        kid::pg::report_invalid_binary(CODOKEY, KEY_FORM);
    return key_datum(p, static_cast<size_t>(len));
}

KID_FUNCTION(codokey_send)
{
    text *t = PG_GETARG_TEXT_PP(0);
    StringInfoData buf;
    pq_begintypsend(&buf);
    pq_sendbytes(&buf, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
    PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* Byte order; a key sorts before the longer keys it is a prefix of. */
static int key_cmp_texts(const text *a, const text *b)
{
    size_t la = VARSIZE_ANY_EXHDR(a), lb = VARSIZE_ANY_EXHDR(b);
    int r = memcmp(VARDATA_ANY(a), VARDATA_ANY(b), la < lb ? la : lb);
    if (r == 0)
        r = (la > lb) - (la < lb);
    return (r > 0) - (r < 0);
}

static int key_cmp(FunctionCallInfo fcinfo)
{
    return key_cmp_texts(PG_GETARG_TEXT_PP(0), PG_GETARG_TEXT_PP(1));
}

/* The same on two datums: the sort support comparator (a PostgreSQL callback). */
static int key_cmp_datums(Datum x, Datum y, SortSupport) noexcept
{
    return key_cmp_texts(DatumGetTextPP(x), DatumGetTextPP(y));
}

KID_FUNCTION(codokey_cmp)
{
    PG_RETURN_INT32(key_cmp(fcinfo));
}

/* Sorts and index builds compare directly, without a function call per comparison. */
KID_FUNCTION(codokey_sortsupport)
{
    SortSupport ssup = reinterpret_cast<SortSupport>(PG_GETARG_POINTER(0));
    ssup->comparator = kid::pg::pg_callback(key_cmp_datums);
    PG_RETURN_VOID();
}

KID_FUNCTION(codokey_smaller)
{
    return key_cmp(fcinfo) <= 0 ? PG_GETARG_DATUM(0) : PG_GETARG_DATUM(1);
}

KID_FUNCTION(codokey_larger)
{
    return key_cmp(fcinfo) >= 0 ? PG_GETARG_DATUM(0) : PG_GETARG_DATUM(1);
}

/*
 * LIKE and NOT LIKE on the key's characters: text LIKE on the same bytes (a
 * codokey is text in the varlena, and its characters are ASCII, so the C
 * collation matches as any deterministic one would).  C functions, not SQL
 * ones inlined into `key::text LIKE p`: PostgreSQL 18's LIKE planning would
 * take that relabelled key for a text index column and fail on the codokey
 * index's collation 0 ("cache lookup failed for collation 0").
 */
KID_FUNCTION(codokey_like)
{
    return DirectFunctionCall2Coll(textlike, C_COLLATION_OID, PG_GETARG_DATUM(0),
                                   PG_GETARG_DATUM(1));
}

KID_FUNCTION(codokey_not_like)
{
    return DirectFunctionCall2Coll(textnlike, C_COLLATION_OID, PG_GETARG_DATUM(0),
                                   PG_GETARG_DATUM(1));
}
KID_FUNCTION(codokey_lt)
{
    PG_RETURN_BOOL(key_cmp(fcinfo) < 0);
}
KID_FUNCTION(codokey_le)
{
    PG_RETURN_BOOL(key_cmp(fcinfo) <= 0);
}
KID_FUNCTION(codokey_eq)
{
    PG_RETURN_BOOL(key_cmp(fcinfo) == 0);
}
KID_FUNCTION(codokey_ne)
{
    PG_RETURN_BOOL(key_cmp(fcinfo) != 0);
}
KID_FUNCTION(codokey_ge)
{
    PG_RETURN_BOOL(key_cmp(fcinfo) >= 0);
}
KID_FUNCTION(codokey_gt)
{
    PG_RETURN_BOOL(key_cmp(fcinfo) > 0);
}

KID_FUNCTION(codokey_hash)
{
    text *t = PG_GETARG_TEXT_PP(0);
    return hash_any(reinterpret_cast<const unsigned char *>(VARDATA_ANY(t)),
                    static_cast<int>(VARSIZE_ANY_EXHDR(t)));
}

KID_FUNCTION(codokey_hash_extended)
{
    text *t = PG_GETARG_TEXT_PP(0);
    return hash_any_extended(reinterpret_cast<const unsigned char *>(VARDATA_ANY(t)),
                             static_cast<int>(VARSIZE_ANY_EXHDR(t)), PG_GETARG_INT64(1));
}

/* ERROR 22023 for a malformed context, with the reason in the detail. */
[[noreturn]] static void report_bad_context(const kid::CodokeyContext &ctx, kid::CodokeyStatus st)
{
    if (st == kid::CodokeyStatus::bad_split_max)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("invalid codokey context: since %d, until %d, split max %lld",
                               ctx.since, ctx.until, static_cast<long long>(ctx.split_max)),
                        errdetail("The split max must be 9, 99, 999, 9999, 99999 or 999999 (10^k - "
                                  "1 for k = 1 to %d).",
                                  kid::CODOKEY_SPLIT_DIGITS_MAX)));
    ereport(ERROR,
            (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
             errmsg("invalid codokey context: since %d, until %d, split max %lld", ctx.since,
                    ctx.until, static_cast<long long>(ctx.split_max)),
             errdetail("Since must not be after until, and both must lie between years %d and %d.",
                       kid::CODOKEY_YEAR_MIN, kid::CODOKEY_YEAR_MAX)));
    pg_unreachable();
}

/* The context of arguments n..n+2 (since, until, split_max); ERROR 22023 when malformed. */
static kid::CodokeyContext context_args(FunctionCallInfo fcinfo, int n)
{
    kid::CodokeyContext ctx;
    ctx.since = PG_GETARG_INT32(n);
    ctx.until = PG_GETARG_INT32(n + 1);
    ctx.split_max = PG_GETARG_INT64(n + 2);
    kid::CodokeyStatus st = kid::codokey_validate_context(ctx);
    if (st != kid::CodokeyStatus::ok)
        report_bad_context(ctx, st);
    return ctx;
}

/* codokey_context_check(since, until, split_max): true, or ERROR 22023 naming the problem. */
KID_FUNCTION(codokey_context_check)
{
    context_args(fcinfo, 0);
    PG_RETURN_BOOL(true);
}

/* codokey_encode(t, precision, since, until, split_max) */
KID_FUNCTION(codokey_encode)
{
    TimestampTz t = PG_GETARG_TIMESTAMPTZ(0);
    int32 precision = PG_GETARG_INT32(1);
    kid::CodokeyContext ctx = context_args(fcinfo, 2);
    if (precision < kid::CODOKEY_PRECISION_YEAR || precision > kid::CODOKEY_PRECISION_SPLIT)
        kid::pg::report_out_of_range(CODOKEY, "precision", precision, kid::CODOKEY_PRECISION_YEAR,
                                     kid::CODOKEY_PRECISION_SPLIT);
    int64_t unix_us = kid::pg::finite_unix_us(CODOKEY, t);
    char key[kid::CODOKEY_MAX_LEN];
    size_t len = 0;
    kid::CodokeyStatus st = kid::codokey_encode(ctx, unix_us, precision, key, &len);
    if (st == kid::CodokeyStatus::year_out_of_range)
        ereport(ERROR,
                (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                 errmsg("timestamp %s is out of range for codokey context %d..%d",
                        timestamptz_to_str(t), ctx.since, ctx.until),
                 errdetail("Its year in UTC must lie between %d and %d.", ctx.since, ctx.until)));
    if (st != kid::CodokeyStatus::ok)
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                        errmsg("cannot encode codokey: %s", kid::codokey_status_message(st))));
    return key_datum(key, len);
}

/*
 * Decode a key in a context.  The key's characters were checked by the
 * type's input; what remains is whether the key belongs to the context:
 * 22007 for a length that fits no precision, 22008 for a year before the
 * context's since or a field the calendar does not have.
 */
static kid::CodokeyFields decode_args(FunctionCallInfo fcinfo)
{
    text *t = PG_GETARG_TEXT_PP(0);
    kid::CodokeyContext ctx = context_args(fcinfo, 1);
    const char *p = VARDATA_ANY(t);
    size_t len = VARSIZE_ANY_EXHDR(t);
    kid::CodokeyFields f;
    kid::CodokeyStatus st = kid::codokey_decode(ctx, p, len, &f);
    if (st == kid::CodokeyStatus::ok)
        return f;
    /*
     * Past bad_character, the key is at most 16 characters of 0-9a-z: it
     * can be quoted whole, with no clipping and no multibyte character.
     */
    int shown = static_cast<int>(len);
    if (st == kid::CodokeyStatus::bad_character)
        kid::pg::report_invalid_text(CODOKEY, p, len, KEY_FORM, kid::pg::TimeHint::codokey);
    if (st == kid::CodokeyStatus::bad_length) {
        int n[7];
        for (int i = 0; i < 7; i++)
            n[i] = kid::codokey_length(ctx, i);
        ereport(ERROR,
                (errcode(ERRCODE_INVALID_DATETIME_FORMAT),
                 errmsg("codokey \"%.*s\" has a length that fits no precision of codokey context "
                        "%d..%d, split max %lld",
                        shown, p, ctx.since, ctx.until, static_cast<long long>(ctx.split_max)),
                 errdetail("Keys of this context have %d, %d, %d, %d, %d, %d or %d characters "
                           "(precision 0 to 6); this one has %d.",
                           n[0], n[1], n[2], n[3], n[4], n[5], n[6], shown)));
    }
    if (st == kid::CodokeyStatus::year_out_of_range)
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("codokey \"%.*s\" is out of range for codokey context %d..%d", shown,
                               p, ctx.since, ctx.until),
                        errdetail("Its year digits name a year before %d.", ctx.since)));
    if (st == kid::CodokeyStatus::field_out_of_range)
        ereport(ERROR,
                (errcode(ERRCODE_DATETIME_FIELD_OVERFLOW),
                 errmsg("codokey \"%.*s\" has a field out of range in codokey context %d..%d",
                        shown, p, ctx.since, ctx.until),
                 errdetail("Its month, day, hour, minute, second or split digits name a value the "
                           "calendar does not have, such as a month 13 or a 31 February.")));
    /* Context errors were reported by context_args. */
    ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                    errmsg("cannot decode codokey: %s", kid::codokey_status_message(st))));
    pg_unreachable();
}

static Datum timestamp_of(FunctionCallInfo fcinfo, const kid::CodokeyFields &f)
{
    /*
     * Years past PostgreSQL's range (before 4714 BC) cannot be returned as a
     * timestamptz.  The core's span reaches the ends of int64_t, so the
     * shift to PostgreSQL's epoch is checked for overflow first.
     */
    TimestampTz ts;
    if (pg_sub_s64_overflow(f.unix_us, kid::pg::POSTGRES_EPOCH_UNIX_US, &ts) ||
        !IS_VALID_TIMESTAMP(ts))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
                        errmsg("codokey year %d is out of range for timestamptz", f.year)));
    PG_RETURN_TIMESTAMPTZ(ts);
}

/* codokey_decode_time(key, since, until, split_max): the earliest instant the key covers */
KID_FUNCTION(codokey_decode_time)
{
    return timestamp_of(fcinfo, decode_args(fcinfo));
}

KID_FUNCTION(codokey_decode_precision)
{
    PG_RETURN_INT32(decode_args(fcinfo).precision);
}

KID_FUNCTION(codokey_decode_info)
{
    kid::CodokeyFields f = decode_args(fcinfo);
    Datum values[] = {
        timestamp_of(fcinfo, f), Int32GetDatum(f.precision), Int32GetDatum(f.year),
        Int32GetDatum(f.month),  Int32GetDatum(f.day),       Int32GetDatum(f.hour),
        Int32GetDatum(f.minute), Int32GetDatum(f.second),    Int64GetDatum(f.split),
    };
    return kid::pg::info_record(fcinfo, "codokey_info", values, lengthof(values));
}
