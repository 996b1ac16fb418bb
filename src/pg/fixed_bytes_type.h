/*
 * fixed_bytes_type.h - the SQL support functions every fixed-size,
 * pass-by-reference id type shares (sno: 10 bytes, uid global: 12 bytes).
 *
 * Such an id is stored as its big-endian bytes, so byte order is its sort
 * order: comparison is memcmp, hashing hashes the bytes, and sorting uses
 * the first 8 bytes as an abbreviated key (as uuid.c does for uuid), with
 * HyperLogLog to give up on abbreviation when those bytes barely differ.
 *
 * KID_FIXED_BYTES_TYPE(prefix, size, "sqlname", validate) defines
 *   prefix_cmp, prefix_lt, _le, _eq, _ne, _ge, _gt,
 *   prefix_hash, prefix_hash_extended, prefix_sortsupport,
 *   prefix_send, prefix_recv, prefix_to_bytea, prefix_from_bytea,
 *   prefix_smaller, prefix_larger (for the min and max aggregates).
 * `validate(bytes)` returns NULL for a valid id or a reason it is not.
 */
#ifndef KID_PG_FIXED_BYTES_TYPE_H
#define KID_PG_FIXED_BYTES_TYPE_H

#include "pg/kid_pg.h"

extern "C" {
#include "common/hashfn.h"
#include "lib/hyperloglog.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/sortsupport.h"
}

namespace kid::pg {

using ValidateBytes = const char *(*)(const uint8_t *bytes);

template <size_t N> inline int fixed_bytes_cmp(Datum a, Datum b)
{
    int r = memcmp(DatumGetPointer(a), DatumGetPointer(b), N);
    return (r > 0) - (r < 0);
}

/* Sort state for abbreviated keys. */
struct AbbrevState {
    int64 input_count;
    bool estimating;
    hyperLogLogState cardinality;
};

/* The sort support callbacks (PostgreSQL callbacks: noexcept). */
template <size_t N> int fixed_bytes_fastcmp(Datum a, Datum b, SortSupport) noexcept
{
    return fixed_bytes_cmp<N>(a, b);
}

/* The first 8 bytes, read big-endian, compare as unsigned integers like the full key. */
template <size_t N> Datum fixed_bytes_abbrev_convert(Datum original, SortSupport ssup) noexcept
{
    auto *state = static_cast<AbbrevState *>(ssup->ssup_extra);
    const uint8_t *p = reinterpret_cast<const uint8_t *>(DatumGetPointer(original));
    uint64 key = 0;
    for (int i = 0; i < 8; i++)
        key = (key << 8) | p[i];
    state->input_count++;
    if (state->estimating) {
        uint32 folded = static_cast<uint32>(key) ^ static_cast<uint32>(key >> 32);
        addHyperLogLog(&state->cardinality, DatumGetUInt32(hash_uint32(folded)));
    }
    return UInt64GetDatum(key);
}

inline bool fixed_bytes_abbrev_abort(int memtupcount, SortSupport ssup) noexcept
{
    auto *state = static_cast<AbbrevState *>(ssup->ssup_extra);
    /* Too early to tell, or already decided to keep abbreviating. */
    if (memtupcount < 10000 || state->input_count < 10000 || !state->estimating)
        return false;
    double distinct = estimateHyperLogLog(&state->cardinality);
    /*
     * Keep abbreviating if at least one key in 2000 has distinct leading
     * bytes; below that the tie-breaks on the full key cost more than the
     * abbreviation saves.  Time-ordered ids nearly always pass.
     */
    if (distinct >= state->input_count / 2000.0) {
        state->estimating = false;
        return false;
    }
    return true;
}

template <size_t N> void fixed_bytes_sortsupport(SortSupport ssup)
{
    ssup->comparator = pg_callback(fixed_bytes_fastcmp<N>);
    ssup->ssup_extra = nullptr;
    if (ssup->abbreviate) {
        MemoryContext old = MemoryContextSwitchTo(ssup->ssup_cxt);
        auto *state = static_cast<AbbrevState *>(palloc(sizeof(AbbrevState)));
        state->input_count = 0;
        state->estimating = true;
        initHyperLogLog(&state->cardinality, 10);
        MemoryContextSwitchTo(old);
        ssup->ssup_extra = state;
        ssup->abbrev_full_comparator = ssup->comparator;
        ssup->comparator = ssup_datum_unsigned_cmp;
        ssup->abbrev_converter = pg_callback(fixed_bytes_abbrev_convert<N>);
        ssup->abbrev_abort = pg_callback(fixed_bytes_abbrev_abort);
    }
}

/* A palloc'd copy of N bytes of binary input, once `validate` accepts them (else 22P03). */
template <size_t N>
Datum fixed_bytes_copy_valid(const uint8_t *p, const char *type_name, ValidateBytes validate)
{
    if (validate) {
        const char *reason = validate(p);
        if (reason)
            report_invalid_binary(type_name, reason);
    }
    void *result = palloc(N);
    memcpy(result, p, N);
    PG_RETURN_POINTER(result);
}

template <size_t N>
Datum fixed_bytes_recv(FunctionCallInfo fcinfo, const char *type_name, ValidateBytes validate)
{
    StringInfo buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
    int remaining = buf->len - buf->cursor;
    if (remaining != static_cast<int>(N))
        report_invalid_binary(type_name, psprintf("Type %s takes exactly %zu bytes, not %d.",
                                                  type_name, N, remaining));
    const uint8_t *p = reinterpret_cast<const uint8_t *>(pq_getmsgbytes(buf, N));
    return fixed_bytes_copy_valid<N>(p, type_name, validate);
}

template <size_t N> Datum fixed_bytes_send(FunctionCallInfo fcinfo)
{
    StringInfoData buf;
    pq_begintypsend(&buf);
    pq_sendbytes(&buf, PG_GETARG_POINTER(0), N);
    PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

template <size_t N> Datum fixed_bytes_to_bytea(FunctionCallInfo fcinfo)
{
    bytea *result = static_cast<bytea *>(palloc(VARHDRSZ + N));
    SET_VARSIZE(result, VARHDRSZ + N);
    memcpy(VARDATA(result), PG_GETARG_POINTER(0), N);
    PG_RETURN_BYTEA_P(result);
}

template <size_t N>
Datum fixed_bytes_from_bytea(FunctionCallInfo fcinfo, const char *type_name, ValidateBytes validate)
{
    bytea *in = PG_GETARG_BYTEA_PP(0);
    size_t len = VARSIZE_ANY_EXHDR(in);
    if (len != N)
        report_invalid_binary(type_name, psprintf("Type %s takes exactly %zu bytes, not %zu.",
                                                  type_name, N, len));
    const uint8_t *p = reinterpret_cast<const uint8_t *>(VARDATA_ANY(in));
    return fixed_bytes_copy_valid<N>(p, type_name, validate);
}

} // namespace kid::pg

#define KID_FIXED_BYTES_COMPARISON(prefix, size, op, test)                                         \
    KID_FUNCTION(prefix##_##op)                                                                    \
    {                                                                                              \
        int c = kid::pg::fixed_bytes_cmp<size>(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1));            \
        PG_RETURN_BOOL(c test 0);                                                                  \
    }

#define KID_FIXED_BYTES_TYPE(prefix, size, sqlname, validate)                                      \
    KID_FIXED_BYTES_COMPARISON(prefix, size, lt, <)                                                \
    KID_FIXED_BYTES_COMPARISON(prefix, size, le, <=)                                               \
    KID_FIXED_BYTES_COMPARISON(prefix, size, eq, ==)                                               \
    KID_FIXED_BYTES_COMPARISON(prefix, size, ne, !=)                                               \
    KID_FIXED_BYTES_COMPARISON(prefix, size, ge, >=)                                               \
    KID_FIXED_BYTES_COMPARISON(prefix, size, gt, >)                                                \
    KID_FUNCTION(prefix##_cmp)                                                                     \
    {                                                                                              \
        PG_RETURN_INT32(kid::pg::fixed_bytes_cmp<size>(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1)));   \
    }                                                                                              \
    KID_FUNCTION(prefix##_smaller)                                                                 \
    {                                                                                              \
        Datum a = PG_GETARG_DATUM(0), b = PG_GETARG_DATUM(1);                                      \
        return kid::pg::fixed_bytes_cmp<size>(a, b) <= 0 ? a : b;                                  \
    }                                                                                              \
    KID_FUNCTION(prefix##_larger)                                                                  \
    {                                                                                              \
        Datum a = PG_GETARG_DATUM(0), b = PG_GETARG_DATUM(1);                                      \
        return kid::pg::fixed_bytes_cmp<size>(a, b) >= 0 ? a : b;                                  \
    }                                                                                              \
    KID_FUNCTION(prefix##_hash)                                                                    \
    {                                                                                              \
        return hash_any(reinterpret_cast<const unsigned char *>(PG_GETARG_POINTER(0)), size);      \
    }                                                                                              \
    KID_FUNCTION(prefix##_hash_extended)                                                           \
    {                                                                                              \
        return hash_any_extended(reinterpret_cast<const unsigned char *>(PG_GETARG_POINTER(0)),    \
                                 size, PG_GETARG_INT64(1));                                        \
    }                                                                                              \
    KID_FUNCTION(prefix##_sortsupport)                                                             \
    {                                                                                              \
        kid::pg::fixed_bytes_sortsupport<size>(                                                    \
            reinterpret_cast<SortSupport>(PG_GETARG_POINTER(0)));                                  \
        PG_RETURN_VOID();                                                                          \
    }                                                                                              \
    KID_FUNCTION(prefix##_send)                                                                    \
    {                                                                                              \
        return kid::pg::fixed_bytes_send<size>(fcinfo);                                            \
    }                                                                                              \
    KID_FUNCTION(prefix##_recv)                                                                    \
    {                                                                                              \
        return kid::pg::fixed_bytes_recv<size>(fcinfo, sqlname, validate);                         \
    }                                                                                              \
    KID_FUNCTION(prefix##_to_bytea)                                                                \
    {                                                                                              \
        return kid::pg::fixed_bytes_to_bytea<size>(fcinfo);                                        \
    }                                                                                              \
    KID_FUNCTION(prefix##_from_bytea)                                                              \
    {                                                                                              \
        return kid::pg::fixed_bytes_from_bytea<size>(fcinfo, sqlname, validate);                   \
    }

#endif
