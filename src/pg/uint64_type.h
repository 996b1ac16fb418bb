/*
 * uint64_type.h - the SQL support functions every 64-bit id type shares
 * (tid, koid, uid local).
 *
 * Such an id is passed by value as its unsigned 64-bit integer, whose order
 * is its sort order (big-endian bytes, text and integer agree).  Comparison
 * is unsigned: an id with the top bit set (a tid whose first character is
 * c..j, a koid after 2039 with the 1970 epoch) sorts after all others, as
 * its text does, even though the same bits as a signed bigint are negative.
 *
 * KID_UINT64_TYPE(prefix, "sqlname", validate) defines
 *   prefix_cmp, prefix_lt, _le, _eq, _ne, _ge, _gt, prefix_smaller, _larger,
 *   prefix_hash, prefix_hash_extended, prefix_sortsupport,
 *   prefix_send, prefix_recv, prefix_to_bytea, prefix_from_bytea,
 *   prefix_to_bigint, prefix_from_bigint.
 * `validate(value)` returns NULL for a valid id or a reason it is not.
 */
#ifndef KID_PG_UINT64_TYPE_H
#define KID_PG_UINT64_TYPE_H

#include "pg/kid_pg.h"

extern "C" {
#include "common/hashfn.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/sortsupport.h"
}

namespace kid::pg {

using ValidateUint64 = const char *(*)(uint64_t value);

inline int uint64_cmp(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}

inline uint64_t uint64_from_be(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

inline Datum uint64_checked(uint64_t v, const char *type_name, ValidateUint64 validate)
{
    if (validate) {
        const char *reason = validate(v);
        if (reason)
            report_invalid_binary(type_name, reason);
    }
    return UInt64GetDatum(v);
}

/*
 * bigint -> id: the same fields are checked as on text and binary input,
 * but a bad one is 22003 (numeric value out of range), as for any cast of
 * an integer to a type that cannot hold it, not 22P03 (binary input).
 */
inline Datum uint64_from_int64(int64 v, const char *type_name, ValidateUint64 validate)
{
    const char *reason = validate ? validate(static_cast<uint64_t>(v)) : nullptr;
    if (reason)
        ereport(ERROR, (errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
                        errmsg("bigint %lld is out of range for type %s", static_cast<long long>(v),
                               type_name),
                        errdetail("%s", reason)));
    return UInt64GetDatum(static_cast<uint64_t>(v));
}

inline Datum uint64_recv(FunctionCallInfo fcinfo, const char *type_name, ValidateUint64 validate)
{
    StringInfo buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
    int remaining = buf->len - buf->cursor;
    if (remaining != 8)
        report_invalid_binary(type_name, psprintf("Type %s takes exactly 8 bytes, not %d.",
                                                  type_name, remaining));
    return uint64_checked(static_cast<uint64_t>(pq_getmsgint64(buf)), type_name, validate);
}

inline Datum uint64_send(FunctionCallInfo fcinfo)
{
    StringInfoData buf;
    pq_begintypsend(&buf);
    pq_sendint64(&buf, static_cast<int64>(DatumGetUInt64(PG_GETARG_DATUM(0))));
    PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

inline Datum uint64_to_bytea(FunctionCallInfo fcinfo)
{
    uint64_t v = DatumGetUInt64(PG_GETARG_DATUM(0));
    bytea *result = static_cast<bytea *>(palloc(VARHDRSZ + 8));
    SET_VARSIZE(result, VARHDRSZ + 8);
    uint8_t *p = reinterpret_cast<uint8_t *>(VARDATA(result));
    for (int i = 7; i >= 0; i--) {
        p[i] = static_cast<uint8_t>(v);
        v >>= 8;
    }
    PG_RETURN_BYTEA_P(result);
}

inline Datum uint64_from_bytea(FunctionCallInfo fcinfo, const char *type_name,
                               ValidateUint64 validate)
{
    bytea *in = PG_GETARG_BYTEA_PP(0);
    size_t len = VARSIZE_ANY_EXHDR(in);
    if (len != 8)
        report_invalid_binary(type_name,
                              psprintf("Type %s takes exactly 8 bytes, not %zu.", type_name, len));
    return uint64_checked(uint64_from_be(reinterpret_cast<const uint8_t *>(VARDATA_ANY(in))),
                          type_name, validate);
}

} // namespace kid::pg

#define KID_UINT64_COMPARISON(prefix, op, test)                                                    \
    KID_FUNCTION(prefix##_##op)                                                                    \
    {                                                                                              \
        PG_RETURN_BOOL(kid::pg::uint64_cmp(DatumGetUInt64(PG_GETARG_DATUM(0)),                     \
                                           DatumGetUInt64(PG_GETARG_DATUM(1))) test 0);            \
    }

#define KID_UINT64_TYPE(prefix, sqlname, validate)                                                 \
    KID_UINT64_COMPARISON(prefix, lt, <)                                                           \
    KID_UINT64_COMPARISON(prefix, le, <=)                                                          \
    KID_UINT64_COMPARISON(prefix, eq, ==)                                                          \
    KID_UINT64_COMPARISON(prefix, ne, !=)                                                          \
    KID_UINT64_COMPARISON(prefix, ge, >=)                                                          \
    KID_UINT64_COMPARISON(prefix, gt, >)                                                           \
    KID_FUNCTION(prefix##_cmp)                                                                     \
    {                                                                                              \
        PG_RETURN_INT32(kid::pg::uint64_cmp(DatumGetUInt64(PG_GETARG_DATUM(0)),                    \
                                            DatumGetUInt64(PG_GETARG_DATUM(1))));                  \
    }                                                                                              \
    KID_FUNCTION(prefix##_smaller)                                                                 \
    {                                                                                              \
        uint64_t a = DatumGetUInt64(PG_GETARG_DATUM(0)), b = DatumGetUInt64(PG_GETARG_DATUM(1));   \
        return UInt64GetDatum(a <= b ? a : b);                                                     \
    }                                                                                              \
    KID_FUNCTION(prefix##_larger)                                                                  \
    {                                                                                              \
        uint64_t a = DatumGetUInt64(PG_GETARG_DATUM(0)), b = DatumGetUInt64(PG_GETARG_DATUM(1));   \
        return UInt64GetDatum(a >= b ? a : b);                                                     \
    }                                                                                              \
    KID_FUNCTION(prefix##_hash)                                                                    \
    {                                                                                              \
        uint64_t v = DatumGetUInt64(PG_GETARG_DATUM(0));                                           \
        return hash_uint32(static_cast<uint32>(v) ^ static_cast<uint32>(v >> 32));                 \
    }                                                                                              \
    KID_FUNCTION(prefix##_hash_extended)                                                           \
    {                                                                                              \
        uint64_t v = DatumGetUInt64(PG_GETARG_DATUM(0));                                           \
        return hash_uint32_extended(static_cast<uint32>(v) ^ static_cast<uint32>(v >> 32),         \
                                    PG_GETARG_INT64(1));                                           \
    }                                                                                              \
    KID_FUNCTION(prefix##_sortsupport)                                                             \
    {                                                                                              \
        /* The datum is the id itself: compare it unsigned, no abbreviation needed. */             \
        reinterpret_cast<SortSupport>(PG_GETARG_POINTER(0))->comparator = ssup_datum_unsigned_cmp; \
        PG_RETURN_VOID();                                                                          \
    }                                                                                              \
    KID_FUNCTION(prefix##_send)                                                                    \
    {                                                                                              \
        return kid::pg::uint64_send(fcinfo);                                                       \
    }                                                                                              \
    KID_FUNCTION(prefix##_recv)                                                                    \
    {                                                                                              \
        return kid::pg::uint64_recv(fcinfo, sqlname, validate);                                    \
    }                                                                                              \
    KID_FUNCTION(prefix##_to_bytea)                                                                \
    {                                                                                              \
        return kid::pg::uint64_to_bytea(fcinfo);                                                   \
    }                                                                                              \
    KID_FUNCTION(prefix##_from_bytea)                                                              \
    {                                                                                              \
        return kid::pg::uint64_from_bytea(fcinfo, sqlname, validate);                              \
    }                                                                                              \
    KID_FUNCTION(prefix##_to_bigint)                                                               \
    {                                                                                              \
        /* The same 64 bits; ids with the top bit set become negative bigints. */                  \
        PG_RETURN_INT64(static_cast<int64>(DatumGetUInt64(PG_GETARG_DATUM(0))));                   \
    }                                                                                              \
    KID_FUNCTION(prefix##_from_bigint)                                                             \
    {                                                                                              \
        return kid::pg::uint64_from_int64(PG_GETARG_INT64(0), sqlname, validate);                  \
    }

#endif
