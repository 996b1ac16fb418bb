/*
 * introspection.cpp - the server-wide monitoring functions:
 * kid_generator_stats(), kid_lease() and kid_node_info().  Each row is one
 * entry of the scheme table (schemes.h) or one lease line; columns are
 * named by an enum in the order of the SQL declaration (sql/kid_common.sql).
 */
#include "pg/shared_state.h"

extern "C" {
#include "funcapi.h"
#include "miscadmin.h"
#include "access/xlog.h"
#include "utils/builtins.h"
/* tuplestore_putvalues: before 19 nodes/execnodes.h (through funcapi.h) included it. */
#include "utils/tuplestore.h"
}

namespace kid::pg {

/*
 * One row of a set-returning function: every column NULL until set.  A
 * plain aggregate (no constructor or destructor), so it may live in a body
 * that longjmps.
 */
template <int N> struct ResultRow {
    Datum values[N];
    bool nulls[N];

    void clear()
    {
        for (int i = 0; i < N; i++) {
            values[i] = 0;
            nulls[i] = true;
        }
    }
    void set(int column, Datum value)
    {
        values[column] = value;
        nulls[column] = false;
    }
    void set_text(int column, const char *text)
    {
        set(column, CStringGetTextDatum(text));
    }
    void set_int64(int column, int64 value)
    {
        set(column, Int64GetDatum(value));
    }
    /* A time in Unix microseconds; 0 ("none") stays NULL. */
    void set_mark(int column, int64 unix_us)
    {
        if (unix_us != 0)
            set(column, TimestampTzGetDatum(timestamptz_from_unix_us(unix_us)));
    }
    void put(FunctionCallInfo fcinfo)
    {
        ReturnSetInfo *rsinfo = reinterpret_cast<ReturnSetInfo *>(fcinfo->resultinfo);
        tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
    }
};

static int64 atomic_value(pg_atomic_uint64 *word)
{
    return static_cast<int64>(pg_atomic_read_u64(word));
}

static int64 max_of(int64 a, int64 b)
{
    return a > b ? a : b;
}

/* The smaller non-zero value, or 0. */
static int64 min_nonzero(int64 a, int64 b)
{
    if (a == 0)
        return b;
    if (b == 0)
        return a;
    return a < b ? a : b;
}

} // namespace kid::pg

/*
 * kid_generator_stats(): one row per scheme (SQL type names; uid counts
 * uid and uid_global, which share one generator) with what it did since
 * the server started: ids generated; regressions, the ids (koid: calls)
 * made while the clock read below a reading seen before (a clock that went
 * back, nothing else); overflow_waits, waits because the ids of the current
 * time unit ran out (sno, koid, uid); clock_waits, waits for a clock behind
 * the generator (sno, koid); ahead_waits, waits because the next tid would
 * be more than kid::TID_MAX_AHEAD_US ahead of the clock.
 */
enum StatsColumn {
    STATS_SCHEME,
    STATS_GENERATED,
    STATS_REGRESSIONS,
    STATS_OVERFLOW_WAITS,
    STATS_CLOCK_WAITS,
    STATS_AHEAD_WAITS,
    STATS_COLUMNS
};

KID_FUNCTION(kid_generator_stats)
{
    using namespace kid::pg;
    InitMaterializedSRF(fcinfo, 0);
    KidShared *s = shared;
    if (s == nullptr)
        PG_RETURN_VOID();
    for (const SchemeDef &scheme : SCHEMES) {
        GeneratorStats st = scheme.stats(s);
        ResultRow<STATS_COLUMNS> row;
        row.clear();
        row.set_text(STATS_SCHEME, scheme.name);
        row.set_int64(STATS_GENERATED, st.generated);
        row.set_int64(STATS_REGRESSIONS, st.regressions);
        row.set_int64(STATS_OVERFLOW_WAITS, st.overflow_waits);
        row.set_int64(STATS_CLOCK_WAITS, st.clock_waits);
        row.set_int64(STATS_AHEAD_WAITS, st.ahead_waits);
        row.put(fcinfo);
    }
    PG_RETURN_VOID();
}

/* kid_lease(): the persisted high-water marks, one row per lease line, for monitoring and the fault tests. */
enum LeaseColumn {
    LEASE_COL_LINE,
    LEASE_COL_COVERED_UNTIL,
    LEASE_COL_STARTUP_FLOOR,
    LEASE_COLUMNS
};

KID_FUNCTION(kid_lease)
{
    using namespace kid::pg;
    InitMaterializedSRF(fcinfo, 0);
    KidShared *s = shared;
    if (s == nullptr)
        PG_RETURN_VOID();
    for (int i = 0; i < LEASE_LINES; i++) {
        ResultRow<LEASE_COLUMNS> row;
        row.clear();
        row.set_text(LEASE_COL_LINE, lease_line_name(i));
        row.set_mark(LEASE_COL_COVERED_UNTIL, atomic_value(&s->lease_us[i]));
        row.set_mark(LEASE_COL_STARTUP_FLOOR, s->startup_floor_us[i]);
        row.put(fcinfo);
    }
    PG_RETURN_VOID();
}

/*
 * kid_node_info(): one row per scheme with what identifies this server's
 * ids and what it generated since start-up, for spotting two servers that
 * generate with the same node id, and the lease marks written and
 * replayed.  startup_mark says whether the startup floor is the exact
 * high-water mark a clean shutdown wrote ("exact") or a lease written ahead
 * ("ahead": after a crash or an immediate shutdown).  Times are those the
 * lease uses: the end of an id's time unit (4 ms for sno, 1 ms for koid,
 * 1.024 ms for uid, 1 us for tid); a scheme with several lease lines (sno)
 * shows them together: the earliest first time, the highest marks.
 */
enum NodeInfoColumn {
    NI_SCHEME,
    NI_NODE_ID,
    NI_NODE_FIELD,
    NI_SYSTEM_IDENTIFIER,
    NI_GENERATION,
    NI_GENERATED,
    NI_FIRST_MADE,
    NI_LAST_MADE,
    NI_LAST_ID,
    NI_STARTUP_FLOOR,
    NI_STARTUP_MARK,
    NI_GENERATOR_FLOOR,
    NI_COVERED_UNTIL,
    NI_REPLAYED_UNTIL,
    NI_REPLAYED_NODE_ID,
    NI_LEASE_WRITES,
    NI_LEASE_RECORDS,
    NI_REPLAYED_RECORDS,
    NI_COLUMNS
};

KID_FUNCTION(kid_node_info)
{
    using namespace kid::pg;
    InitMaterializedSRF(fcinfo, 0);
    KidShared *s = shared;
    const char *refusal = generation_refusal();

    for (const SchemeDef &scheme : SCHEMES) {
        ResultRow<NI_COLUMNS> row;
        row.clear();
        row.set_text(NI_SCHEME, scheme.name);
        row.set_text(NI_GENERATION, refusal ? refusal : "allowed");
        /* The system identifier is known with or without preloading. */
        row.set_int64(NI_SYSTEM_IDENTIFIER, static_cast<int64>(GetSystemIdentifier()));
        if (s == nullptr) {
            row.put(fcinfo);
            continue;
        }
        row.set(NI_NODE_ID, Int32GetDatum(node_id));
        row.set_int64(NI_NODE_FIELD, scheme.node_field());

        int64 generated = scheme.stats(s).generated;
        int64 first_us = 0, startup = 0, floor = 0, covered = 0, replayed = 0;
        for (int line = scheme.first_line; line < scheme.first_line + scheme.lines; line++) {
            first_us = min_nonzero(first_us, s->first_us[line]);
            startup = max_of(startup, s->startup_floor_us[line]);
            floor = max_of(floor, atomic_value(&s->floor_us[line]));
            covered = max_of(covered, atomic_value(&s->lease_us[line]));
            replayed = max_of(replayed, atomic_value(&s->replayed_us[line]));
        }
        row.set_int64(NI_GENERATED, generated);
        row.set_mark(NI_FIRST_MADE, generated > 0 ? first_us : 0);
        NewestId newest;
        if (scheme.newest(s, &newest)) {
            row.set_mark(NI_LAST_MADE, newest.end_us);
            if (newest.has_text)
                row.set_text(NI_LAST_ID, newest.text);
        }
        row.set_mark(NI_STARTUP_FLOOR, startup);
        /* What kind of mark the startup floor is; NULL when there was no kid.lease. */
        if (s->startup_found)
            row.set_text(NI_STARTUP_MARK, s->startup_exact ? "exact" : "ahead");
        row.set_mark(NI_GENERATOR_FLOOR, floor);
        row.set_mark(NI_COVERED_UNTIL, covered);
        row.set_mark(NI_REPLAYED_UNTIL, replayed);
        if (s->replayed_writer.node_id >= 0)
            row.set(NI_REPLAYED_NODE_ID, Int32GetDatum(s->replayed_writer.node_id));
        row.set_int64(NI_LEASE_WRITES, atomic_value(&s->lease_writes));
        row.set_int64(NI_LEASE_RECORDS, atomic_value(&s->lease_records));
        row.set_int64(NI_REPLAYED_RECORDS, atomic_value(&s->replayed_records));
        row.put(fcinfo);
    }
    PG_RETURN_VOID();
}
